package paper

import (
	"regexp"
	"strings"
	"sync"
)

// footnoteStart is the first line of a footnote: its mark (a number of one or two digits,
// or a symbol TeX uses for footnotes), then the note, usually set against it ("4We also",
// "11https://…").
var footnoteStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9]{1,2}|[*∗†‡§¶]|[¹²³⁴⁵⁶⁷⁸⁹⁰]{1,2})\s?([\p{L}“"‘']|https?:)`)
})

// splitFootnotes takes the footnotes out of a page's lines in reading order and returns the
// rest and the footnotes as blocks. A footnote is at the foot of its column: in the lower
// half of the page, below every line of body size in that column, in a smaller size, and it
// starts with its mark. Read in reading order they came between the column they end and the
// column that goes on ("separated by … 4We also experimented … the [SEP] token").
func splitFootnotes(lines []line, body float64, page BBox) ([]line, []Block) {
	small := func(l line) bool { return l.size < 0.93*body && !l.vertical }
	// lowest[c]: the bottom of the lowest line of body size in column c (0: full width).
	lowest := map[int]float64{}
	for _, l := range lines {
		if l.size >= 0.95*body {
			if y, ok := lowest[l.col]; !ok || l.box.Y0 < y {
				lowest[l.col] = l.box.Y0
			}
		}
	}
	half := page.Y0 + 0.5*(page.Y1-page.Y0)
	foot := func(l line) bool {
		y, ok := lowest[l.col]
		return small(l) && l.box.Y1 < half && (!ok || l.box.Y1 <= y+0.2*body)
	}
	body2 := make([]line, 0, len(lines)) // most lines are the body's
	var notes []Block
	var cur []line
	curCol := -1
	flush := func() {
		if len(cur) > 0 {
			notes = append(notes, footnoteBlock(cur))
		}
		cur, curCol = nil, -1
	}
	for _, l := range lines {
		starts := footnoteStart().MatchString(l.text)
		switch {
		case foot(l) && starts:
			flush()
			cur, curCol = []line{l}, l.col
		case foot(l) && len(cur) > 0 && l.col == curCol:
			cur = append(cur, l)
		default:
			if l.col == curCol || l.col == 0 {
				flush()
			}
			body2 = append(body2, l)
		}
	}
	flush()
	return body2, notes
}

// footnoteBlock makes one footnote of its lines: the mark as Note, and in the text in
// superscript digits (as written after the word it annotates) followed by a space.
func footnoteBlock(lines []line) Block {
	b := makeBlock(lines, 0, 0)
	b.Kind = KindFootnote
	m := footnoteStart().FindStringSubmatch(b.Text)
	mark := m[1]
	rest := strings.TrimSpace(b.Text[len(mark):])
	plain, sup := mark, mark
	if isDigits(mark) {
		var s strings.Builder
		for _, r := range mark {
			s.WriteRune(superDigits[r-'0'])
		}
		sup = s.String()
	} else if r := []rune(mark); superIndex(r[0]) >= 0 {
		var p strings.Builder
		for _, c := range r {
			p.WriteByte(byte('0' + superIndex(c)))
		}
		plain = p.String()
	}
	b.Note = plain
	b.Text = sup + " " + rest
	return b
}

func superIndex(r rune) int {
	for i, s := range superDigits {
		if s == r {
			return i
		}
	}
	return -1
}
