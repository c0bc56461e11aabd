// Package paper extracts readable text from PDF papers: lines rebuilt from glyph
// positions, columns in reading order, sections, captions and clear errors for bad input.
package paper

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// BlockKind says what a block of text is.
type BlockKind string

// Block kinds, in the order they usually appear.
const (
	KindTitle     BlockKind = "title"
	KindHeading   BlockKind = "heading"
	KindParagraph BlockKind = "paragraph"
	KindCaption   BlockKind = "caption"
	KindReference BlockKind = "reference"
	// KindFootnote is a footnote, taken out of the running text and placed at the foot of
	// its column (after the column's last block); its Text starts with its mark (in superscript digits when a
	// number, as the mark in the text is written) and Note holds the mark.
	KindFootnote BlockKind = "footnote"
)

// BBox is a rectangle in PDF points, origin at the bottom left of the page.
type BBox struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

// Block is a run of text with one role: a paragraph, heading or caption.
type Block struct {
	Kind BlockKind `json:"kind"`
	Text string    `json:"text"`
	BBox BBox      `json:"bbox"`
	// Note is a footnote's mark ("4", "*", "†"); empty for other kinds.
	Note string `json:"note,omitempty"`
	// Section is the index in Document.Sections of the (sub)section the block belongs
	// to (a heading belongs to the section it opens); -1 before the first heading.
	Section int `json:"section"`
}

// Page is one extracted page; Number counts from 1.
type Page struct {
	Number int     `json:"number"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Blocks []Block `json:"blocks"`
}

// Section is a recognised part of the paper and where it starts.
type Section struct {
	Title string `json:"title"` // the heading as printed: "2.4 Selecting Negative Distractors"
	Level int    `json:"level"` // 1 for "2 Method", 2 for "2.1 Setup"
	Page  int    `json:"page"`
	Kind  string `json:"kind,omitempty"` // abstract, references or empty
	// Number is the heading's number ("2.4", "A"), empty for an unnumbered one.
	Number string `json:"number,omitempty"`
	// Name is the heading without its number: "Selecting Negative Distractors".
	Name string `json:"name,omitempty"`
}

// Meta is what is known about the paper from its metadata and first page.
type Meta struct {
	Title    string   `json:"title"`
	Authors  []string `json:"authors,omitempty"`
	Year     int      `json:"year,omitempty"`
	Pages    int      `json:"pages"`
	Producer string   `json:"producer,omitempty"`
	Repaired bool     `json:"repaired,omitempty"` // pdfcpu had to rewrite the file
}

// Document is an extracted paper.
type Document struct {
	Meta     Meta      `json:"meta"`
	Pages    []Page    `json:"pages"`
	Sections []Section `json:"sections"`
}

// Text returns the plain text in reading order, blocks separated by blank lines. A footnote
// follows its column's text; when the column ends inside a paragraph it waits for the
// paragraph's end in the next column or on the next page, so that no note splits a sentence.
func (d *Document) Text() string {
	var b strings.Builder
	d.walk(func(bl Block, _ int) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(bl.Text)
	}, nil)
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// walk calls block for each block in reading order with the number of the page it is printed
// on, and page, when not nil, before each page. Text, Markdown and Chunks read in this order.
// A footnote is read where it is printed, at the foot of its column (placeNote), unless the
// column's text ends inside a paragraph: then it waits for the paragraph's end, in the next
// column or on the next page, after the first paragraph there that starts in lower case (the
// sentence going on), holding on past a figure's text or caption set between the two halves,
// which a float does not end ("compared with the SciBERT baseline | (a) SPECTER (b) SciBERT |
// Figure 2: … | for a random set of papers | ¹³ …"). A heading, or a paragraph that starts a
// new sentence, releases the notes before it; the end of the page after theirs at the latest.
func (d *Document) walk(block func(bl Block, page int), page func(Page)) {
	type note struct {
		bl   Block
		page int
	}
	var held []note
	release := func() {
		for _, n := range held {
			block(n.bl, n.page)
		}
		held = held[:0]
	}
	open := false    // the last block read is a paragraph whose sentence runs on
	waiting := false // the held notes wait for that paragraph's end
	for _, p := range d.Pages {
		if page != nil {
			page(p)
		}
		for _, bl := range p.Blocks {
			if bl.Kind == KindFootnote {
				if len(held) == 0 {
					waiting = open
				}
				held = append(held, note{bl, p.Number})
				continue
			}
			if len(held) > 0 {
				if waiting && bl.Kind == KindParagraph && startsLower(bl.Text) {
					block(bl, p.Number) // the paragraph that ran past the notes ends here
					open = !endsSentence(bl.Text)
					release()
					waiting = false
					continue
				}
				if !waiting || !floatBetween(bl) {
					release()
					waiting = false
				}
			}
			block(bl, p.Number)
			if !floatBetween(bl) {
				open = bl.Kind == KindParagraph && !endsSentence(bl.Text)
			}
		}
		// Notes wait past the page's end only for a paragraph that runs on, and only once.
		if len(held) > 0 && (!waiting || held[0].page != p.Number) {
			release()
			waiting = false
		}
	}
	release()
}

// floatBetween reports whether a block can stand between a paragraph's two halves without
// ending it: a caption, or a paragraph that is no prose, as a figure's labels or a table's
// rows are (fewer than half its words start in lower case: "(a) SPECTER (b) SciBERT", "CLS
// USR CITE REC Avg.", "SPECTER 84.2 88.4 …"), where a new paragraph of prose has most.
func floatBetween(bl Block) bool {
	if bl.Kind == KindCaption {
		return true
	}
	if bl.Kind != KindParagraph || startsLower(bl.Text) {
		return false
	}
	words, lower := 0, 0
	for _, w := range strings.Fields(bl.Text) {
		words++
		if startsLower(w) {
			lower++
		}
	}
	return 2*lower < words
}

// endsSentence reports whether text ends as a sentence does (or is empty): a paragraph that
// does not run on across a page or column break.
func endsSentence(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return strings.ContainsRune(".?!:;)”\"", r)
}

// Markdown returns the text with headings as Markdown headings, captions in
// italics, footnotes as quotes and a page marker comment before each page.
func (d *Document) Markdown() string {
	var b strings.Builder
	d.walk(func(bl Block, _ int) {
		switch bl.Kind {
		case KindTitle:
			b.WriteString("# " + bl.Text)
		case KindHeading:
			b.WriteString(strings.Repeat("#", headingLevel(bl.Text)+1) + " " + bl.Text)
		case KindCaption:
			b.WriteString("*" + strings.TrimSpace(bl.Text) + "*")
		case KindFootnote:
			b.WriteString("> " + bl.Text)
		default:
			b.WriteString(bl.Text)
		}
		b.WriteString("\n\n")
	}, func(p Page) { fmt.Fprintf(&b, "<!-- page %d -->\n\n", p.Number) })
	return b.String()
}

// Write renders the document as "text", "markdown" (or "md") or "json".
func (d *Document) Write(w io.Writer, format string) error {
	var s string
	switch strings.ToLower(format) {
	case "", "text", "txt":
		s = d.Text()
	case "markdown", "md":
		s = d.Markdown()
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	default:
		return fmt.Errorf("unknown format %q (want text, markdown or json)", format)
	}
	_, err := io.WriteString(w, s)
	return err
}
