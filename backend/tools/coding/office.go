package coding

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

// officeNames name the formats in messages to the model.
var officeNames = map[string]string{"docx": "Word file", "xlsx": "Excel file", "pptx": "PowerPoint file"}

var (
	errEncryptedOffice = errors.New("encrypted")
	errCorruptOffice   = errors.New("damaged")
	errTooLargeOffice  = errors.New("past the reader's limits") // its child died past one
)

// cfbMagic starts a Compound File: an encrypted Office file (or a legacy .doc/.xls/.ppt
// renamed), never a zip.
var cfbMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// officeText converts a .docx, .xlsx or .pptx file to text: Word paragraphs (headings as
// Markdown headings, tables as Markdown tables), each sheet as a Markdown table, each slide's
// text after a slide marker.
func officeText(kind, abs string) (string, error) {
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 8)
	if n, _ := io.ReadFull(f, head); n == 8 && bytes.Equal(head, cfbMagic) {
		return "", fmt.Errorf("%w (or an old binary Office file renamed)", errEncryptedOffice)
	}
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return "", fmt.Errorf("%w: not a zip archive", errCorruptOffice)
	}
	switch kind {
	case "xlsx":
		return xlsxText(zr)
	case "docx":
		data, err := newOfficeZip(zr).file("word/document.xml")
		if err != nil {
			return "", err
		}
		return docxText(data)
	default:
		return pptxText(zr)
	}
}

// officeZip reads the members of an Office zip, each at most once and all within a budget.
// A part's XML is bounded (maxOfficeXML), but a workbook may name one part for any number of
// sheets, or hold many: 200 sheets naming one part of 60 MB (a 62 KB file) parsed 12 GB of
// XML, minutes of CPU. The parts together may inflate to maxOfficeXMLTotal.
type officeZip struct {
	zr    *zip.Reader
	part  int64 // maxOfficeXML and maxOfficeXMLTotal (a test's may be less: officeZipWithin)
	total int64
	left  int64
	read  map[string]bool
}

// maxOfficeXMLTotal is 4 parts' worth: a sheet's XML is 3 to 6 times the text it holds, and
// the text of a workbook is bounded to maxOfficeXML.
const maxOfficeXMLTotal = 4 * maxOfficeXML

func newOfficeZip(zr *zip.Reader) *officeZip {
	return officeZipWithin(zr, maxOfficeXML, maxOfficeXMLTotal)
}

// officeZipWithin reads zr within a bound per part and one for all of them.
func officeZipWithin(zr *zip.Reader, part, total int64) *officeZip {
	return &officeZip{zr: zr, part: part, total: total, left: total, read: map[string]bool{}}
}

// file reads one member, bounded; a member read before is refused (no real file names one
// part twice).
func (z *officeZip) file(name string) ([]byte, error) {
	if z.read[name] {
		return nil, fmt.Errorf("%w: %s is named twice", errCorruptOffice, name)
	}
	for _, f := range z.zr.File {
		if f.Name != name {
			continue
		}
		z.read[name] = true
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errCorruptOffice, err)
		}
		defer rc.Close()
		limit := min(z.part, z.left)
		data, err := io.ReadAll(io.LimitReader(rc, limit+1))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errCorruptOffice, err)
		}
		if int64(len(data)) > z.part {
			return nil, fmt.Errorf("%w: %s inflates past %s", errCorruptOffice, name, humanBytes(z.part))
		}
		if z.left -= int64(len(data)); z.left < 0 {
			return nil, fmt.Errorf("%w: its parts inflate past %s in all", errCorruptOffice, humanBytes(z.total))
		}
		return data, nil
	}
	return nil, fmt.Errorf("%w: no %s inside", errCorruptOffice, name)
}

// has reports whether the zip holds a member name.
func (z *officeZip) has(name string) bool {
	for _, f := range z.zr.File {
		if f.Name == name {
			return true
		}
	}
	return false
}

// docxText walks word/document.xml: paragraphs, headings, list items and tables.
func docxText(data []byte) (string, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var out, para strings.Builder
	var row []string
	var prefix string
	depth, rows := 0, 0 // table nesting; rows of the current table
	cell := strings.Builder{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%w: word/document.xml: %v", errCorruptOffice, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p":
				para.Reset()
				prefix = ""
			case "pStyle":
				if lvl := headingLevel(attr(t, "val")); lvl > 0 {
					prefix = strings.Repeat("#", lvl) + " "
				}
			case "numPr":
				if prefix == "" {
					prefix = "- "
				}
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			case "tbl":
				depth++
				rows = 0
			case "tr":
				row = nil
			case "tc":
				cell.Reset()
			}
		case xml.CharData:
			para.Write(t)
		case xml.EndElement:
			switch t.Name.Local {
			case "p":
				text := strings.TrimSpace(para.String())
				if depth > 0 {
					if cell.Len() > 0 && text != "" {
						cell.WriteByte(' ')
					}
					cell.WriteString(text)
				} else if text != "" {
					out.WriteString(prefix + text + "\n\n")
				}
				para.Reset()
			case "tc":
				row = append(row, cellText(cell.String()))
			case "tr":
				out.WriteString("| " + strings.Join(row, " | ") + " |\n")
				if rows == 0 {
					out.WriteString("|" + strings.Repeat(" --- |", len(row)) + "\n")
				}
				rows++
			case "tbl":
				depth--
				out.WriteByte('\n')
			}
		}
	}
	return strings.TrimRight(out.String(), "\n") + "\n", nil
}

// headingLevel reads Word's built-in heading styles (Heading1…Heading6, Title).
func headingLevel(style string) int {
	if style == "Title" {
		return 1
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(style, "Heading")); err == nil && strings.HasPrefix(style, "Heading") && n >= 1 && n <= 6 {
		return n
	}
	return 0
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// cellText keeps a table cell on one line of a Markdown table.
func cellText(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// pptxText lists each slide's paragraphs in slide order.
func pptxText(zr *zip.Reader) (string, error) {
	type slide struct {
		n    int
		name string
	}
	var slides []slide
	for _, f := range zr.File {
		dir, base := path.Split(f.Name)
		if dir != "ppt/slides/" || !strings.HasPrefix(base, "slide") || !strings.HasSuffix(base, ".xml") {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(base, "slide"), ".xml")); err == nil {
			slides = append(slides, slide{n, f.Name})
		}
	}
	if len(slides) == 0 {
		return "", fmt.Errorf("%w: no slides inside", errCorruptOffice)
	}
	sort.Slice(slides, func(i, j int) bool { return slides[i].n < slides[j].n })
	z := newOfficeZip(zr)
	var out strings.Builder
	for i, s := range slides {
		data, err := z.file(s.name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&out, "--- slide %d ---\n", i+1)
		dec := xml.NewDecoder(bytes.NewReader(data))
		var para strings.Builder
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				return "", fmt.Errorf("%w: %s: %v", errCorruptOffice, s.name, err)
			}
			switch t := tok.(type) {
			case xml.StartElement:
				if t.Name.Local == "br" {
					para.WriteByte('\n')
				}
			case xml.CharData:
				para.Write(t)
			case xml.EndElement:
				if t.Name.Local == "p" {
					if text := strings.TrimSpace(para.String()); text != "" {
						out.WriteString(text + "\n")
					}
					para.Reset()
				}
			}
		}
	}
	return out.String(), nil
}
