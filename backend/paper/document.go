// Package paper extracts readable text from PDF papers: lines rebuilt from glyph
// positions, columns in reading order, sections, captions and clear errors for bad input.
package paper

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
	Title string `json:"title"`
	Level int    `json:"level"` // 1 for "2 Method", 2 for "2.1 Setup"
	Page  int    `json:"page"`
	Kind  string `json:"kind,omitempty"` // abstract, references or empty
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

// Text returns the plain text in reading order, blocks separated by blank lines.
func (d *Document) Text() string {
	var b strings.Builder
	for _, p := range d.Pages {
		for _, bl := range p.Blocks {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(bl.Text)
		}
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// Markdown returns the text with headings as Markdown headings, captions in
// italics and a page marker comment before each page.
func (d *Document) Markdown() string {
	var b strings.Builder
	for _, p := range d.Pages {
		fmt.Fprintf(&b, "<!-- page %d -->\n\n", p.Number)
		for _, bl := range p.Blocks {
			switch bl.Kind {
			case KindTitle:
				b.WriteString("# " + bl.Text)
			case KindHeading:
				b.WriteString(strings.Repeat("#", headingLevel(bl.Text)+1) + " " + bl.Text)
			case KindCaption:
				b.WriteString("*" + strings.TrimSpace(bl.Text) + "*")
			default:
				b.WriteString(bl.Text)
			}
			b.WriteString("\n\n")
		}
	}
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
