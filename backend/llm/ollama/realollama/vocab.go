package realollama

import (
	"strings"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"
)

// o200kPieces returns the first n pieces of o200k_base that are whole UTF-8 text, spelled as
// SentencePiece spells them (a space is "▁"), with their ranks. BPE makes every piece from two
// of lower rank, so the first n ranks are closed under its merges: SentencePiece, merging the
// best-scored pair whose join is in the vocabulary, reaches the same pieces. What differs from
// o200k is only its pre-split (words, digits, punctuation): close enough for a context length
// to mean about the same number of tokens on both sides.
func o200kPieces(n int) (pieces []string, ranks []int) {
	c := codec.NewO200kBase()
	seen := map[string]bool{}
	for r := 0; r < n; r++ {
		s, err := c.Decode([]uint{uint(r)})
		if err != nil || s == "" || !utf8.ValidString(s) {
			continue // a piece of a character: SentencePiece falls back to bytes there
		}
		s = strings.ReplaceAll(s, " ", "▁")
		if seen[s] {
			continue
		}
		seen[s] = true
		pieces = append(pieces, s)
		ranks = append(ranks, r)
	}
	return pieces, ranks
}
