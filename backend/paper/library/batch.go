package library

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/tofu-research/tofu/backend/paper"
)

// batchWords is how many words of source go into one translation call.
const batchWords = 600

var markerRE = regexp.MustCompile(`⟦(\d+)⟧`)

// numbered writes the items at indexes batch as the model reads them: each paragraph after
// its marker ⟦n⟧, so the reply can be split back into paragraphs.
func numbered(items []TranslationItem, batch []int) string {
	var b strings.Builder
	for k, i := range batch {
		fmt.Fprintf(&b, "⟦%d⟧ %s\n\n", k+1, items[i].Source)
	}
	return strings.TrimSpace(b.String())
}

// splitMarked splits a reply to numbered into its n paragraphs; with markers out of order it
// returns those before the first wrong one. A one-paragraph reply may leave its marker out.
func splitMarked(reply string, n int) []string {
	text := strings.TrimSpace(reply)
	locs := markerRE.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 && n == 1 {
		return []string{text}
	}
	var out []string
	for k, loc := range locs {
		m, _ := strconv.Atoi(text[loc[2]:loc[3]])
		if m != k+1 {
			return out
		}
		end := len(text)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		out = append(out, strings.TrimSpace(text[loc[1]:end]))
	}
	return out
}

// nextBatch picks the next untranslated paragraphs, up to batchWords words.
func nextBatch(items []TranslationItem) []int {
	var out []int
	words := 0
	for i, it := range items {
		if it.Skipped || it.Text != "" {
			if len(out) > 0 {
				break // keep batches contiguous: context helps the translation
			}
			continue
		}
		n := len(strings.Fields(it.Source))
		if len(out) > 0 && words+n > batchWords {
			break
		}
		out = append(out, i)
		words += n
	}
	return out
}

// translationItems lists the paper's blocks in reading order, marking what is not to be
// translated: references, and blocks that are mostly formula or code.
func translationItems(doc *paper.Document) []TranslationItem {
	var out []TranslationItem
	for _, pg := range doc.Pages {
		for _, b := range pg.Blocks {
			text := strings.TrimSpace(b.Text)
			if text == "" {
				continue
			}
			out = append(out, TranslationItem{
				Page: pg.Number, Kind: string(b.Kind), Source: text,
				Skipped: b.Kind == paper.KindReference || !isProse(text),
			})
		}
	}
	return out
}

// isProse says whether a block is language rather than a formula, code or a bare number: at
// least half of its characters are letters and it has a word of three letters or more.
func isProse(s string) bool {
	letters, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r):
		default:
			other++
		}
	}
	if letters == 0 || letters < other {
		return false
	}
	if strings.Count(s, ";")+strings.Count(s, "{")+strings.Count(s, "}") > len(strings.Fields(s))/2 {
		return false // code
	}
	for _, w := range strings.Fields(s) {
		if n := len([]rune(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))); n >= 3 {
			return true
		}
	}
	return strings.IndexFunc(s, func(r rune) bool { return r > 0x2E80 }) >= 0 // CJK
}
