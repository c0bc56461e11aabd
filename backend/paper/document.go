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
	// KindFootnote is a footnote, taken out of the running text and placed after the
	// page's other blocks; its Text starts with its mark (in superscript digits when a
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

// Text returns the plain text in reading order, blocks separated by blank lines. A page's
// footnotes follow its text; when the page ends inside a paragraph they wait for the
// paragraph's end on the next page, so that no note splits a sentence.
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
// on, a page's footnotes moved after the paragraph its last block begins (see Text), and
// page, when not nil, before each page. Text, Markdown and Chunks read in this order.
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
	for _, p := range d.Pages {
		if page != nil {
			page(p)
		}
		for i, bl := range p.Blocks {
			if bl.Kind == KindFootnote {
				held = append(held, note{bl, p.Number})
				continue
			}
			if len(held) > 0 && !(i == 0 && bl.Kind == KindParagraph) {
				release() // the paragraph that ran across the page break has ended
			}
			block(bl, p.Number)
			if len(held) > 0 && i == 0 {
				release()
			}
		}
		if len(held) > 0 && !runsOn(p) {
			release()
		}
	}
	release()
}

// runsOn reports whether a page's running text ends inside a paragraph: its last block
// before the footnotes is a paragraph that does not end a sentence.
func runsOn(p Page) bool {
	for i := len(p.Blocks) - 1; i >= 0; i-- {
		bl := p.Blocks[i]
		if bl.Kind == KindFootnote {
			continue
		}
		return bl.Kind == KindParagraph && !endsSentence(bl.Text)
	}
	return false
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
