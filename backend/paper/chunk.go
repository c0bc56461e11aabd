package paper

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Chunk is a passage of the paper for retrieval: whole paragraphs of one (sub)section, with
// the pages and boxes it covers so an answer citing it can be shown. Where the page turns
// inside the passage, Text carries a "[page N]" marker, so a model citing it can name the
// exact page.
type Chunk struct {
	ID      int        `json:"id"`
	Section string     `json:"section,omitempty"` // its own (sub)section: "2.4 Negative examples"
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

// Page returns the page the chunk's text starts on (its first block's: a page's footnotes,
// read after the paragraph that runs on to the next page, can follow text of a later page).
func (c Chunk) Page() int {
	if len(c.Boxes) > 0 {
		return c.Boxes[0].Page
	}
	if len(c.Pages) == 0 {
		return 0
	}
	return c.Pages[0]
}

// ChunkVersion changes whenever Chunks cuts differently, so stored chunks of an older cut can
// be made again from the stored document.
const ChunkVersion = 5

// Chunk sizes in words. A passage is a few paragraphs: the grain a question is answered at.
// It is closed before a paragraph that would take it past ChunkMaxWords, so it ends where a
// paragraph ends; a paragraph longer than ChunkMaxWords is cut at sentence ends. Small
// passages keep what is sent per question small (five of them are about 1,000 words) and let
// the ranking pick the paragraph that answers rather than the page around it.
const (
	ChunkMinWords = 60
	ChunkMaxWords = 180
)

// pageMarker is what marks a page turn inside a chunk's text.
func pageMarker(page int) string { return "[page " + strconv.Itoa(page) + "]" }

// PageMarkers matches the page markers Chunks puts in a chunk's text.
var PageMarkers = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[page \d+\]\s*`) })

// runInHeading is a numbered subsection heading set at the start of its paragraph
// ("2.4 Selecting Negative Distractors The choice of …"), as ACL and many other styles print
// them: the number, then the rest of the paragraph.
var runInHeading = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{1,2})((?:\.\d{1,2}){1,3})\.?\s+(\p{Lu}.*)$`)
})

// topNumber is the number a section's heading starts with ("2" of "2 Model", "2. Method");
// subNumber the first number of a subsection's ("2" of "2.4 Inference").
var (
	topNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,2})(?:[.\s]|$)`) })
	subNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,2})\.\d`) })
)

// Chunks cuts the document into section-aware passages: a chunk never crosses a heading, it
// is labelled with its own subsection (a heading block, or a numbered heading run into its
// paragraph), and references are left out (they answer no question about the paper and crowd
// out ones that do).
func (d *Document) Chunks() []Chunk {
	var (
		out     []Chunk
		cur     Chunk
		parts   []string
		section string
		top     string // number of the enclosing numbered section, "" when there is none
		at      int    // the page of the last block added to cur (0: none yet)
		open    bool   // the last block added to cur is a paragraph whose sentence runs on
	)
	flush := func() {
		if cur.Words == 0 {
			cur, parts, at, open = Chunk{}, nil, 0, false
			return
		}
		cur.ID = len(out)
		cur.Section = section
		cur.Text = strings.Join(parts, "\n\n")
		slices.Sort(cur.Pages)
		out = append(out, cur)
		cur, parts, at, open = Chunk{}, nil, 0, false
	}
	add := func(page int, box BBox, text string, words int) {
		if page != at {
			if at != 0 {
				text = pageMarker(page) + " " + text
			}
			at = page
			if !slices.Contains(cur.Pages, page) {
				cur.Pages = append(cur.Pages, page)
			}
		}
		cur.Boxes = append(cur.Boxes, ChunkBox{Page: page, BBox: box})
		parts = append(parts, text)
		cur.Words += words
	}
	// In the reading order of Text: a page's footnotes after the paragraph that runs on across
	// its end, not between that paragraph's two halves (the passage sent to the model read
	// "separated by … ⁴ We also experimented … ⁵ It is also possible … [page 3] the [SEP] token").
	d.walk(func(b Block, page int) {
		text := strings.TrimSpace(b.Text)
		if text == "" {
			return
		}
		switch b.Kind {
		case KindHeading, KindTitle:
			flush()
			section = text
			if b.Kind == KindTitle {
				section = ""
			}
			// A subsection keeps the number of the section it is in; a section sets it.
			if m := subNumber().FindStringSubmatch(text); m != nil {
				if top == "" {
					top = m[1]
				}
			} else if m := topNumber().FindStringSubmatch(text); m != nil {
				top = m[1]
			} else {
				top = ""
			}
			return
		case KindReference:
			flush()
			return
		case KindParagraph:
			// A numbered heading run into its paragraph, under the section with its first
			// number ("2.4 …" inside "2 Model"): a number elsewhere ("3.5 million …") is not one.
			if m := runInHeading().FindStringSubmatch(text); m != nil && m[1] == top {
				flush()
				section = m[1] + m[2] + " " + runInTitle(m[3])
				section = strings.TrimSpace(section)
			}
		}
		// A passage below ChunkMinWords (a heading's first short paragraph) takes the next
		// paragraph or piece even past ChunkMaxWords: a passage of a few words answers nothing.
		// Nor is a paragraph cut where a page or column break set it in two blocks ("…
		// separated by | the [SEP] token"): the second, starting in lower case, stays with the
		// first.
		words := wordCount(text)
		continues := open && b.Kind == KindParagraph && startsLower(text)
		if !floatBetween(b) { // a figure between the two halves does not end the paragraph
			open = b.Kind == KindParagraph && !endsSentence(text)
		}
		if !continues && cur.Words >= ChunkMinWords && cur.Words+words > ChunkMaxWords {
			flush()
		}
		if words <= ChunkMaxWords {
			add(page, b.BBox, text, words)
			return
		}
		for i, piece := range splitLong(text, ChunkMaxWords) {
			n := wordCount(piece)
			if !(i == 0 && continues) && cur.Words >= ChunkMinWords && cur.Words+n > ChunkMaxWords {
				flush()
			}
			add(page, b.BBox, piece, n)
		}
	}, nil)
	flush()
	return out
}

// runInTitle is the title of a run-in heading: the words before the paragraph's first
// sentence begins, where a capitalised word is followed by one in lower case ("Selecting
// Negative Distractors | The choice of …", "Negative examples | The first set …") unless that
// is one of the small words titles keep in lower case, between capitalised words ("Born with
// World Models?"), or at a
// period ending the title. Up to ten words; none found, the first four.
func runInTitle(rest string) string {
	w := strings.Fields(rest)
	limit := min(len(w), 11)
	for j := 0; j < limit; j++ {
		if j > 0 && strings.HasSuffix(w[j-1], ".") {
			return strings.TrimSuffix(strings.Join(w[:j], " "), ".")
		}
		// A small word between capitalised ones is the title's ("Born with World Models");
		// followed by one in lower case it is the sentence's ("In the recommendation task").
		inTitle := titleWords[strings.ToLower(w[min(j+1, len(w)-1)])] && j+2 < len(w) && startsUpper(w[j+2])
		if j >= 1 && j+1 < len(w) && startsUpper(w[j]) && startsLower(w[j+1]) && !inTitle {
			return strings.TrimSuffix(strings.Join(w[:j], " "), ".")
		}
	}
	if len(w) <= 10 {
		return strings.Join(w, " ") // the heading is the whole block ("2.1 Overview")
	}
	return strings.Join(w[:4], " ")
}

// titleWords are the words a title in title case keeps in lower case (Chicago's short
// articles, conjunctions and prepositions).
var titleWords = map[string]bool{"a": true, "an": true, "the": true, "and": true, "or": true, "but": true,
	"nor": true, "of": true, "in": true, "on": true, "at": true, "to": true, "for": true, "with": true,
	"by": true, "from": true, "via": true, "as": true, "into": true, "over": true, "vs.": true, "vs": true}

func startsUpper(s string) bool {
	for _, r := range s {
		return r >= 'A' && r <= 'Z' || (r > 127 && strings.ToUpper(string(r)) == string(r) && strings.ToLower(string(r)) != string(r))
	}
	return false
}

func startsLower(s string) bool {
	for _, r := range s {
		return r >= 'a' && r <= 'z' || (r > 127 && strings.ToLower(string(r)) == string(r) && strings.ToUpper(string(r)) != string(r))
	}
	return false
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
	if len(words) <= 1 || wordCount(text) > 2*len(words) {
		return splitRunes(text, max) // unspaced (CJK) text: by characters, at sentence ends
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

// splitRunes cuts unspaced text into pieces of at most max words (a CJK character is one),
// after a sentence end (。！？.) in the second half of a piece when there is one.
func splitRunes(text string, max int) []string {
	r := []rune(text)
	if wordCount(text) <= max || len(r) <= max {
		return []string{text}
	}
	var out []string
	for len(r) > max {
		cut := max
		for i := max; i > max/2; i-- {
			if c := r[i-1]; c == '。' || c == '！' || c == '？' || c == '.' {
				cut = i
				break
			}
		}
		out = append(out, string(r[:cut]))
		r = r[cut:]
	}
	if len(r) > 0 {
		out = append(out, string(r))
	}
	return out
}
