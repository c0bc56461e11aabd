package eval

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Tokens splits text into comparable words: NFKC, lower case, runs of
// letters and digits; every CJK character is a token of its own because
// those scripts do not separate words. Latin tokens of one character (stray
// math symbols, list markers) are dropped.
func Tokens(s string) []string {
	s = strings.ToLower(norm.NFKC.String(s))
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 1 {
			out = append(out, string(cur))
		}
		cur = cur[:0]
	}
	for _, r := range s {
		switch {
		case isCJK(r):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		case unicode.Is(unicode.Mn, r):
		default:
			flush()
		}
	}
	flush()
	return out
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// F1 compares two token lists as bags of words: precision is the share of
// extracted tokens found in the truth, recall the share of the truth found.
func F1(got, want []string) (f1, precision, recall float64) {
	if len(got) == 0 || len(want) == 0 {
		return 0, 0, 0
	}
	counts := map[string]int{}
	for _, w := range want {
		counts[w]++
	}
	overlap := 0
	for _, g := range got {
		if counts[g] > 0 {
			counts[g]--
			overlap++
		}
	}
	precision = float64(overlap) / float64(len(got))
	recall = float64(overlap) / float64(len(want))
	if overlap == 0 {
		return 0, precision, recall
	}
	return 2 * precision * recall / (precision + recall), precision, recall
}

// Order measures reading order on anchor words: tokens that occur exactly
// once in each text. It is the length of the longest run of anchors that
// appear in the same relative order in both texts (an LCS, computed as a
// longest increasing subsequence) divided by the number of anchors, so 1.0
// means every anchor comes in the truth's order. It ignores words missing
// from either side; F1 accounts for those.
func Order(got, want []string) float64 {
	once := func(ts []string) map[string]int {
		pos := map[string]int{}
		seen := map[string]int{}
		for i, t := range ts {
			seen[t]++
			pos[t] = i
		}
		for t, n := range seen {
			if n != 1 {
				delete(pos, t)
			}
		}
		return pos
	}
	gp, wp := once(got), once(want)
	type pair struct{ g, w int }
	var anchors []pair
	for t, g := range gp {
		if w, ok := wp[t]; ok {
			anchors = append(anchors, pair{g, w})
		}
	}
	if len(anchors) == 0 {
		return 0
	}
	sort.Slice(anchors, func(i, j int) bool { return anchors[i].g < anchors[j].g })
	var tails []int // patience sorting: tails[k] is the smallest end of an increasing run of length k+1
	for _, a := range anchors {
		k := sort.SearchInts(tails, a.w)
		if k == len(tails) {
			tails = append(tails, a.w)
		} else {
			tails[k] = a.w
		}
	}
	return float64(len(tails)) / float64(len(anchors))
}
