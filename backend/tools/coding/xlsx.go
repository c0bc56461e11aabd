package coding

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// An .xlsx is read here with encoding/xml rather than through a spreadsheet library: the one
// Tofu used built its formula and number-format tables at package init, some 14 ms and 21,000
// allocations on every start of the binary (`tofu version` included) for a tool few calls use.

// maxSheetCells bounds one sheet's grid (rows × widest row): a single cell at XFD1048576
// would otherwise ask for seventeen billion empty cells.
const maxSheetCells = 2_000_000

// xlsxText writes each sheet as a Markdown table, cells as Excel shows them (number formats
// applied, dates in ISO form).
func xlsxText(zr *zip.Reader) (string, error) {
	z := newOfficeZip(zr)
	wb, err := readWorkbook(z)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, sh := range wb.sheets {
		data, err := z.file(sh.part)
		if err != nil {
			return "", err
		}
		rows, err := wb.sheetRows(data)
		if err != nil {
			return "", fmt.Errorf("%w: sheet %s: %v", errCorruptOffice, sh.name, err)
		}
		width := 0
		for _, r := range rows {
			width = max(width, len(r))
		}
		if len(rows)*width > maxSheetCells {
			return "", fmt.Errorf("%w: sheet %s spans %d rows × %d columns, past %d cells", errCorruptOffice, sh.name, len(rows), width, maxSheetCells)
		}
		fmt.Fprintf(&out, "--- sheet %s (%d rows × %d columns) ---\n", sh.name, len(rows), width)
		for i, r := range rows {
			out.WriteString("| ")
			for j := range width {
				if j > 0 {
					out.WriteString(" | ")
				}
				if j >= len(r) {
					continue
				}
				// A shared string is stored once and shown in every cell that names it: one
				// of 10 MB named by 2,000 cells (a 16 KB file) made 20 GB of text, a fatal
				// out-of-memory. The text is bounded as the XML it comes from is; a cell's
				// text is at most twice its value (each | escaped), checked before it is made.
				if out.Len()+2*len(r[j]) > maxOfficeXML {
					return "", fmt.Errorf("%w: sheet %s: its text passes %s", errCorruptOffice, sh.name, humanBytes(maxOfficeXML))
				}
				out.WriteString(cellText(r[j]))
			}
			out.WriteString(" |\n")
			if i == 0 {
				out.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
			}
		}
		out.WriteByte('\n')
	}
	return out.String(), nil
}

// workbook is what every sheet needs from the rest of the file.
type workbook struct {
	sheets   []sheetRef
	shared   []string // the shared strings table
	formats  []string // number format code of each cell style (index s)
	date1904 bool
}

type sheetRef struct{ name, part string }

// readWorkbook reads the sheet list in workbook order, the shared strings and the styles'
// number formats.
func readWorkbook(z *officeZip) (*workbook, error) {
	wb := &workbook{}
	data, err := z.file("xl/workbook.xml")
	if err != nil {
		return nil, err
	}
	relsData, err := z.file("xl/_rels/workbook.xml.rels")
	if err != nil {
		return nil, err
	}
	targets := map[string]string{}
	if err := eachElement(relsData, func(e xml.StartElement) {
		if e.Name.Local == "Relationship" {
			targets[attr(e, "Id")] = attr(e, "Target")
		}
	}); err != nil {
		return nil, fmt.Errorf("%w: xl/_rels/workbook.xml.rels: %v", errCorruptOffice, err)
	}
	if err := eachElement(data, func(e xml.StartElement) {
		switch e.Name.Local {
		case "workbookPr":
			v := attr(e, "date1904")
			wb.date1904 = v == "1" || v == "true"
		case "sheet":
			target := targets[attr(e, "id")]
			if target == "" {
				return
			}
			part := strings.TrimPrefix(target, "/")
			if !strings.HasPrefix(target, "/") {
				part = path.Join("xl", target)
			}
			wb.sheets = append(wb.sheets, sheetRef{name: attr(e, "name"), part: part})
		}
	}); err != nil {
		return nil, fmt.Errorf("%w: xl/workbook.xml: %v", errCorruptOffice, err)
	}
	// The shared strings and the styles are optional parts.
	if z.has("xl/sharedStrings.xml") {
		data, err := z.file("xl/sharedStrings.xml")
		if err != nil {
			return nil, err
		}
		if wb.shared, err = sharedStrings(data); err != nil {
			return nil, fmt.Errorf("%w: xl/sharedStrings.xml: %v", errCorruptOffice, err)
		}
	}
	if z.has("xl/styles.xml") {
		data, err := z.file("xl/styles.xml")
		if err != nil {
			return nil, err
		}
		if wb.formats, err = cellFormats(data); err != nil {
			return nil, fmt.Errorf("%w: xl/styles.xml: %v", errCorruptOffice, err)
		}
	}
	return wb, nil
}

// eachToken calls fn on every token of an XML document, until fn returns an error.
func eachToken(data []byte, fn func(tok xml.Token) error) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(tok); err != nil {
			return err
		}
	}
}

// eachElement calls fn on every start element of an XML document.
func eachElement(data []byte, fn func(xml.StartElement)) error {
	return eachToken(data, func(tok xml.Token) error {
		if e, ok := tok.(xml.StartElement); ok {
			fn(e)
		}
		return nil
	})
}

// sharedStrings reads the <si> items: plain <t> or rich-text runs, without the phonetic
// guides (<rPh>) Excel shows only on request.
func sharedStrings(data []byte) ([]string, error) {
	var out []string
	var cur strings.Builder
	inT, phonetic := false, 0
	err := eachToken(data, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				cur.Reset()
			case "rPh":
				phonetic++
			case "t":
				inT = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				out = append(out, cur.String())
			case "rPh":
				phonetic--
			case "t":
				inT = false
			}
		case xml.CharData:
			if inT && phonetic == 0 {
				cur.Write(t)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// cellFormats maps each cell style (cellXfs, in order) to its number format code: a
// built-in one by id or one the file defines in <numFmts>.
func cellFormats(data []byte) ([]string, error) {
	custom := map[int]string{}
	var ids []int
	inXfs := false
	err := eachToken(data, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "numFmt":
				if id, err := strconv.Atoi(attr(t, "numFmtId")); err == nil {
					custom[id] = clipFormat(attr(t, "formatCode"))
				}
			case "cellXfs":
				inXfs = true
			case "xf":
				if inXfs {
					id, _ := strconv.Atoi(attr(t, "numFmtId"))
					ids = append(ids, id)
				}
			}
		case xml.EndElement:
			if t.Name.Local == "cellXfs" {
				inXfs = false
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	formats := make([]string, len(ids))
	for i, id := range ids {
		if code, ok := custom[id]; ok {
			formats[i] = code
		} else {
			formats[i] = builtinFormat(id)
		}
	}
	return formats, nil
}

// sheetRows reads a worksheet's cells into rows, placed by their references (A1) so that
// empty rows and cells keep their place; trailing empty cells of a row are dropped.
func (wb *workbook) sheetRows(data []byte) ([][]string, error) {
	var rows [][]string
	// slots counts the grid's allocated places, rows and cells: a cell far right in each of
	// many rows (ZZZ1, ZZZ2, …, 35 bytes of XML each) allocated 18,278 cells a row, 292 KB,
	// and a 2.5 MB file of them ran the process out of memory (fatal, unrecoverable). What
	// xlsxText keeps is at most maxSheetCells (rows × widest row), so a grid of more than
	// twice that (the rows, and the cells in them) is refused as it grows: never a sheet
	// that would be kept, and at most about 100 MB.
	slots := 0
	grow := func(n int) error {
		if slots += n; slots > 2*maxSheetCells {
			return fmt.Errorf("its cells spread past the sheet bound (%d places)", 2*maxSheetCells)
		}
		return nil
	}
	row, col := -1, -1
	var typ, style string
	var val strings.Builder
	inCell, inValue, phonetic := false, false, 0
	err := eachToken(data, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row++
				if r, err := strconv.Atoi(attr(t, "r")); err == nil && r > 0 {
					row = r - 1
				}
				col = -1
			case "c":
				inCell = true
				typ, style = attr(t, "t"), attr(t, "s")
				val.Reset()
				col++
				if c, r, ok := cellRef(attr(t, "r")); ok {
					col, row = c, r
				}
				if row < 0 {
					row = 0
				}
			case "v", "t":
				inValue = inCell
			case "rPh":
				phonetic++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "c":
				inCell = false
				text := wb.cellValue(typ, style, val.String())
				if text == "" {
					return nil
				}
				if row >= len(rows) {
					if (row+1)*(col+1) > maxSheetCells*4 {
						return fmt.Errorf("a cell at row %d, column %d is past the sheet bound", row+1, col+1)
					}
					if err := grow(row + 1 - len(rows)); err != nil {
						return err
					}
					rows = append(rows, make([][]string, row+1-len(rows))...)
				}
				if col >= len(rows[row]) {
					if err := grow(col + 1 - len(rows[row])); err != nil {
						return err
					}
				}
				for len(rows[row]) <= col {
					rows[row] = append(rows[row], "")
				}
				rows[row][col] = text
			case "v", "t":
				inValue = false
			case "rPh":
				phonetic--
			}
		case xml.CharData:
			if inValue && phonetic == 0 {
				val.Write(t)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// cellRef parses a reference such as "B12" into a zero-based column and row.
func cellRef(ref string) (col, row int, ok bool) {
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		col = col*26 + int(ref[i]-'A'+1)
		i++
	}
	r, err := strconv.Atoi(ref[i:])
	if i == 0 || i > 3 || err != nil || r < 1 {
		return 0, 0, false
	}
	return col - 1, r - 1, true
}

// cellValue is the text Excel shows for a cell of type typ and style index style.
func (wb *workbook) cellValue(typ, style, raw string) string {
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || i < 0 || i >= len(wb.shared) {
			return ""
		}
		return wb.shared[i]
	case "b":
		if strings.TrimSpace(raw) == "1" {
			return "TRUE"
		}
		return "FALSE"
	case "str", "inlineStr", "e", "d":
		return raw
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	if err != nil {
		return raw
	}
	code := ""
	if i, err := strconv.Atoi(style); err == nil && i >= 0 && i < len(wb.formats) {
		code = wb.formats[i]
	}
	return formatNumber(v, code, wb.date1904)
}
