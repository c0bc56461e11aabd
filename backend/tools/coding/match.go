package coding

import (
	"fmt"
	"slices"
	"strings"
)

// MinSimilarity is how alike a block must be to be offered as the closest match of a missed
// search (ToFu's difflib ratio threshold).
const MinSimilarity = 0.6

// matchKind says how a search string was found.
type matchKind int

const (
	matchExact matchKind = iota + 1 // byte for byte
	matchEOL                        // after converting its line endings to the file's
	matchSpace                      // line by line, ignoring trailing whitespace
)

// span is a byte range of the content to replace, and the replacement text.
type span struct {
	start, end int
	repl       string
}

// findSpans locates old in content in ToFu's order (exact, line endings, trailing whitespace)
// and returns where to put repl, converted to the file's line endings. The first stage that
// finds anything decides.
func findSpans(content, old, repl string) ([]span, matchKind) {
	crlf := strings.Contains(content, "\r\n")
	if s := exactSpans(content, old, repl); len(s) > 0 {
		return s, matchExact
	}
	if crlf {
		o, r := toCRLF(old), toCRLF(repl)
		if s := exactSpans(content, o, r); len(s) > 0 {
			return s, matchEOL
		}
	} else if strings.Contains(old, "\r\n") {
		o, r := toLF(old), toLF(repl)
		if s := exactSpans(content, o, r); len(s) > 0 {
			return s, matchEOL
		}
	}
	return lineSpans(content, old, repl, crlf), matchSpace
}

func exactSpans(content, old, repl string) []span {
	var out []span
	for i := 0; ; {
		j := strings.Index(content[i:], old)
		if j < 0 {
			return out
		}
		out = append(out, span{i + j, i + j + len(old), repl})
		i += j + len(old)
	}
}

// fileLine is one line of content: its text without the terminator, and its byte range.
type fileLine struct {
	text       string
	start, end int // end excludes "\r\n" or "\n"
	next       int // start of the following line
}

func splitFileLines(content string) []fileLine {
	var out []fileLine
	for i := 0; i < len(content); {
		j := strings.IndexByte(content[i:], '\n')
		next := len(content)
		end := len(content)
		if j >= 0 {
			end, next = i+j, i+j+1
		}
		text := content[i:end]
		if strings.HasSuffix(text, "\r") {
			text, end = text[:len(text)-1], end-1
		}
		out = append(out, fileLine{text, i, end, next})
		i = next
	}
	return out
}

func searchLines(old string) (lines []string, endsNL bool) {
	old = toLF(old)
	endsNL = strings.HasSuffix(old, "\n")
	lines = strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	return lines, endsNL
}

// lineSpans matches old line by line ignoring trailing whitespace (and "\r").
func lineSpans(content, old, repl string, crlf bool) []span {
	want, endsNL := searchLines(old)
	if strings.TrimSpace(strings.Join(want, "")) == "" {
		return nil
	}
	for i := range want {
		want[i] = trimRight(want[i])
	}
	lines := splitFileLines(content)
	r := toLF(repl)
	if endsNL {
		r = strings.TrimSuffix(r, "\n")
	}
	if crlf {
		r = toCRLF(r)
	}
	var out []span
	for i := 0; i+len(want) <= len(lines); i++ {
		ok := true
		for k, w := range want {
			if trimRight(lines[i+k].text) != w {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		last := lines[i+len(want)-1]
		s := span{lines[i].start, last.end, r}
		if r == "" && endsNL { // deleting whole lines removes their line breaks too
			s.end = last.next
		}
		out = append(out, s)
		i += len(want) - 1
	}
	return out
}

func trimRight(s string) string { return strings.TrimRight(s, " \t\r") }

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func toCRLF(s string) string { return strings.ReplaceAll(toLF(s), "\n", "\r\n") }

// lineOf returns the 1-based line number of byte offset off.
func lineOf(content string, off int) int { return strings.Count(content[:off], "\n") + 1 }

// closest finds the block of content most like old and renders it with line numbers, or
// returns "" when nothing reaches MinSimilarity.
func closest(content, old string) string {
	want, _ := searchLines(old)
	lines := splitFileLines(content)
	k := len(want)
	if k == 0 || len(lines) == 0 {
		return ""
	}
	k = min(k, len(lines))
	wantGrams := make([][]uint32, len(want))
	wantLen := 0
	for i, w := range want {
		wantGrams[i] = bigrams(strings.TrimSpace(w))
		wantLen += len(strings.TrimSpace(w)) + 1
	}
	fileGrams := make([][]uint32, len(lines))
	for i, l := range lines {
		fileGrams[i] = bigrams(strings.TrimSpace(l.text))
	}
	best, bestScore := -1, 0.0
	for s := 0; s+k <= len(lines); s++ {
		total := 0.0
		for j := range k {
			a, b := strings.TrimSpace(want[j]), strings.TrimSpace(lines[s+j].text)
			w := float64(len(a) + 1)
			if a == b {
				total += w
			} else {
				total += w * dice(wantGrams[j], fileGrams[s+j])
			}
		}
		if score := total / float64(wantLen); score > bestScore {
			best, bestScore = s, score
		}
	}
	if best < 0 || bestScore < MinSimilarity {
		return ""
	}
	var b strings.Builder
	note := ""
	if bestScore >= 0.999 {
		note = "; only indentation differs"
	}
	fmt.Fprintf(&b, "Closest block, lines %d-%d (%d%% similar%s):\n", best+1, best+k, int(bestScore*100), note)
	for j := range k {
		fmt.Fprintf(&b, "%d\t%s\n", best+j+1, lines[best+j].text)
	}
	return b.String()
}

// bigrams returns the sorted character bigrams of s, packed two runes to a uint32 (lossy,
// which is fine for a similarity score).
func bigrams(s string) []uint32 {
	r := []rune(s)
	if len(r) < 2 {
		if len(r) == 1 {
			return []uint32{uint32(r[0])}
		}
		return nil
	}
	out := make([]uint32, 0, len(r)-1)
	for i := 0; i+1 < len(r); i++ {
		out = append(out, uint32(r[i])<<16^uint32(r[i+1]))
	}
	slices.Sort(out)
	return out
}

// dice is the Sørensen–Dice coefficient of two sorted bigram multisets.
func dice(a, b []uint32) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}
