package paper

import (
	"strings"
)

// Chunk is a passage of the paper for retrieval: consecutive blocks of one section, about
// 300–500 words, with the pages and boxes it covers so an answer citing it can be shown.
type Chunk struct {
	ID      int        `json:"id"`
	Section string     `json:"section,omitempty"` // title of the section it belongs to
	Pages   []int      `json:"pages"`             // pages it spans, ascending
	Text    string     `json:"text"`
	Words   int        `json:"words"`
	Boxes   []ChunkBox `json:"boxes,omitempty"`
}

// ChunkBox is where one block of a chunk sits on its page.
type ChunkBox struct {
	Page int  `json:"page"`
	BBox BBox `json:"bbox"`
}

// Page returns the first page the chunk is on.
func (c Chunk) Page() int {
	if len(c.Pages) == 0 {
		return 0
	}
	return c.Pages[0]
}

// Chunk sizes in words. A chunk is closed once it reaches ChunkMinWords and the next block would
// take it past ChunkMaxWords; a block longer than ChunkMaxWords is cut at sentence ends.
const (
	ChunkMinWords = 300
	ChunkMaxWords = 500
)

// Chunks cuts the document into section-aware passages: a chunk never crosses a heading, and
// references are left out (they answer no question about the paper and crowd out ones that do).
func (d *Document) Chunks() []Chunk {
	var (
		out     []Chunk
		cur     Chunk
		parts   []string
		section string
	)
	flush := func() {
		if cur.Words == 0 {
			return
		}
		cur.ID = len(out)
		cur.Section = section
		cur.Text = strings.Join(parts, "\n\n")
		out = append(out, cur)
		cur, parts = Chunk{}, nil
	}
	add := func(page int, box BBox, text string, words int) {
		if n := len(cur.Pages); n == 0 || cur.Pages[n-1] != page {
			cur.Pages = append(cur.Pages, page)
		}
		cur.Boxes = append(cur.Boxes, ChunkBox{Page: page, BBox: box})
		parts = append(parts, text)
		cur.Words += words
	}
	for _, p := range d.Pages {
		for _, b := range p.Blocks {
			text := strings.TrimSpace(b.Text)
			if text == "" {
				continue
			}
			switch b.Kind {
			case KindHeading, KindTitle:
				flush()
				section = text
				if b.Kind == KindTitle {
					section = ""
				}
				continue
			case KindReference:
				flush()
				continue
			}
			words := wordCount(text)
			if cur.Words >= ChunkMinWords && cur.Words+words > ChunkMaxWords {
				flush()
			}
			if words <= ChunkMaxWords {
				add(p.Number, b.BBox, text, words)
				continue
			}
			for _, piece := range splitLong(text, ChunkMaxWords-ChunkMinWords/2) {
				n := wordCount(piece)
				if cur.Words > 0 && cur.Words+n > ChunkMaxWords {
					flush()
				}
				add(p.Number, b.BBox, piece, n)
			}
		}
	}
	flush()
	return out
}

// wordCount counts words; each CJK character counts as one, as a reader of CJK text would.
func wordCount(s string) int {
	n := 0
	inWord := false
	for _, r := range s {
		switch {
		case isCJK(r):
			n++
			inWord = false
		case r == ' ' || r == '\n' || r == '\t':
			inWord = false
		default:
			if !inWord {
				n++
			}
			inWord = true
		}
	}
	return n
}

// splitLong cuts text into pieces of at most max words, at sentence ends when there is one.
func splitLong(text string, max int) []string {
	words := strings.Fields(text)
	if len(words) <= 1 {
		return []string{text} // unspaced (CJK) text: one piece
	}
	var out []string
	for len(words) > max {
		cut := max
		for i := max; i > max/2; i-- {
			if w := words[i-1]; strings.HasSuffix(w, ".") || strings.HasSuffix(w, "?") || strings.HasSuffix(w, "!") {
				cut = i
				break
			}
		}
		out = append(out, strings.Join(words[:cut], " "))
		words = words[cut:]
	}
	if len(words) > 0 {
		out = append(out, strings.Join(words, " "))
	}
	return out
}
