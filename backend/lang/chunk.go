package lang

import (
	"strings"
	"unicode/utf8"
)

// chunk is a run of whole paragraphs of a masked text, renumbered so its placeholders count
// from [[T1]]: a paragraph translates (and is cached) the same wherever it appears.
type chunk struct {
	text  string
	spans []Span // spans[i] is the chunk's placeholder i+1
	sep   string // what followed the chunk in the text (blank lines), kept as it was
}

// split cuts a masked text at blank lines into chunks of at most max runes (a longer
// paragraph is a chunk of its own). Joining each chunk's text and sep gives the text back.
func split(m Masked, max int) []chunk {
	type para struct{ text, sep string }
	var paras []para
	for rest := m.Text; rest != ""; {
		i := strings.Index(rest, "\n\n")
		if i < 0 {
			paras = append(paras, para{text: rest})
			break
		}
		j := i
		for j < len(rest) && (rest[j] == '\n' || rest[j] == '\r') {
			j++
		}
		paras = append(paras, para{text: rest[:i], sep: rest[i:j]})
		rest = rest[j:]
	}
	var out []chunk
	var cur strings.Builder
	for i, p := range paras {
		cur.WriteString(p.text)
		last := i == len(paras)-1
		if last || utf8.RuneCountInString(cur.String())+len(p.sep)+utf8.RuneCountInString(paras[i+1].text) > max {
			out = append(out, renumber(cur.String(), m.Spans, p.sep))
			cur.Reset()
			continue
		}
		cur.WriteString(p.sep)
	}
	return out
}

func renumber(text string, spans []Span, sep string) chunk {
	c := chunk{sep: sep}
	c.text = canonical.ReplaceAllStringFunc(text, func(p string) string {
		id := placeholderID(p)
		c.spans = append(c.spans, spans[id-1])
		return placeholder(len(c.spans))
	})
	return c
}

// hasProse reports whether a chunk has anything to translate beside its placeholders.
func (c chunk) hasProse() bool {
	for _, r := range canonical.ReplaceAllString(c.text, "") {
		if r > ' ' && !strings.ContainsRune("#*-_>|=:.,;!?()[]{}0123456789", r) {
			return true
		}
	}
	return false
}
