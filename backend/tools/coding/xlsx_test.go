package coding

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/tofu-research/tofu/backend/testtools"
)

// TestXLSXCellsAsShown writes a workbook with Excel's own kinds of cell (through the
// spreadsheet library, as another program would) and reads it back as text.
func TestXLSXCellsAsShown(t *testing.T) {
	wb := excelize.NewFile()
	style := func(fmtID int, custom string) int {
		s := &excelize.Style{NumFmt: fmtID}
		if custom != "" {
			s.CustomNumFmt = &custom
		}
		id, err := wb.NewStyle(s)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	set := func(cell string, v any, st int) {
		if err := wb.SetCellValue("Sheet1", cell, v); err != nil {
			t.Fatal(err)
		}
		if st >= 0 {
			wb.SetCellStyle("Sheet1", cell, cell, st)
		}
	}
	set("A1", "kind", -1)
	set("B1", "value", -1)
	set("B2", 0.1+0.2, -1)
	set("B3", 0.256, style(10, ""))
	set("B4", 1234567.891, style(4, ""))
	set("B5", time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC), style(14, ""))
	set("B6", time.Date(2024, 3, 9, 13, 45, 30, 0, time.UTC), style(0, `yyyy-mm-dd hh:mm:ss`))
	set("B7", true, -1)
	set("B8", 42, style(0, `0.0 "kg"`))
	wb.SetCellFormula("Sheet1", "B9", `"a"&"b"`)
	set("D10", "far | corner", -1)
	var buf bytes.Buffer
	if err := wb.Write(&buf); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := xlsxText(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--- sheet Sheet1 (10 rows × 4 columns) ---\n",
		"| kind | value |  |  |\n| --- | --- | --- | --- |\n",
		"|  | 0.3 |  |  |\n", "|  | 25.60% |  |  |\n", "|  | 1,234,567.89 |  |  |\n",
		"|  | 2024-03-09 |  |  |\n", "|  | 2024-03-09 13:45:30 |  |  |\n", "|  | TRUE |  |  |\n",
		"|  | 42.0 |  |  |\n", "|  |  |  | far \\| corner |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for _, c := range []struct {
		v    float64
		code string
		want string
	}{
		{3, "", "3"}, {1e20, "General", "1E+20"}, {-1234.5, "#,##0.00", "-1,234.50"},
		{0.5, "0%", "50%"}, {12345, "0.00E+00", "1.23E+04"}, {0.75, "h:mm", "18:00:00"},
		{1, "[Red]0.0;[Blue]-0.0", "1.0"}, {45000, "d-mmm-yy", "2023-03-15"}, {0, "mm-dd-yy", "1899-12-30"},
	} {
		if got := formatNumber(c.v, c.code, false); got != c.want {
			t.Errorf("formatNumber(%v, %q) = %q, want %q", c.v, c.code, got, c.want)
		}
	}
	if got := formatNumber(0, "yyyy-mm-dd", true); got != "1904-01-01" {
		t.Errorf("1904 epoch: %q", got)
	}
	// Decimals stop at Excel's 30: a format of a million zeros over 10,000 cells (a 28 KB
	// file) made 10 GB of text, a fatal out-of-memory.
	million := "0." + strings.Repeat("0", 1<<20)
	for _, code := range []string{million, million + "%", million + "E+00"} {
		if got := formatNumber(1, code, false); len(got) > 40 {
			t.Errorf("formatNumber(1, %.12q…): %d bytes", code, len(got))
		}
	}
	for _, code := range []string{"yyyy-mm-dd", "h:mm:ss", "0.00", "#,##0"} {
		formatNumber(1e308, code, false) // ends, whatever it shows
	}
}

func TestCellRef(t *testing.T) {
	for ref, want := range map[string][2]int{"A1": {0, 0}, "Z9": {25, 8}, "AA10": {26, 9}, "XFD1048576": {16383, 1048575}} {
		c, r, ok := cellRef(ref)
		if !ok || c != want[0] || r != want[1] {
			t.Errorf("cellRef(%q) = %d, %d, %v", ref, c, r, ok)
		}
	}
	for _, bad := range []string{"", "1", "A", "A0", "ABCD1"} {
		if _, _, ok := cellRef(bad); ok {
			t.Errorf("cellRef(%q) accepted", bad)
		}
	}
}

// A lone far cell would ask for billions of empty cells: refused, not allocated.
func TestXLSXFarCellRefused(t *testing.T) {
	wb := excelize.NewFile()
	wb.SetCellValue("Sheet1", "A1", "near")
	wb.SetCellValue("Sheet1", "XFD1048576", "far")
	var buf bytes.Buffer
	if err := wb.Write(&buf); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := xlsxText(zr); err == nil || !strings.Contains(err.Error(), "past the sheet bound") {
		t.Fatalf("got %v, want the sheet bound", err)
	}
}

// A shared string is stored once and shown in every cell naming it: one of 10 MB named by
// 2,000 cells (a 16 KB file) made 20 GB of text, a fatal out-of-memory. The text is bounded
// as the XML it comes from (64 MB): here 1 MB named by 100 cells.
func TestXLSXSharedStringAmplificationRefused(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	sheet, shared := sharedStringAmplification()
	zr := xlsxZip(t, sheet, shared)
	if _, err := xlsxText(zr); err == nil || !strings.Contains(err.Error(), "its text passes 64.0 MB") {
		t.Fatalf("got %v, want the text bound", err)
	}
}

// sharedStringAmplification is a sheet of 100 cells naming one shared string of 1 MB: 100 MB
// of text from a small file, past the 64 MB bound.
func sharedStringAmplification() (sheet, shared string) {
	var b strings.Builder
	b.WriteString(`<worksheet><sheetData>`)
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, `<c r="A%d" t="s"><v>0</v></c>`, i)
	}
	b.WriteString(`</sheetData></worksheet>`)
	return b.String(), `<sst><si><t>` + strings.Repeat("a", 1<<20) + `</t></si></sst>`
}

// xlsxParts are the parts of a workbook of one sheet, S, with shared strings when shared is
// not empty.
func xlsxParts(sheet, shared string) map[string]string {
	parts := map[string]string{
		"xl/workbook.xml":            `<workbook><sheets><sheet name="S" id="r1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="r1" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml":   sheet,
	}
	if shared != "" {
		parts["xl/sharedStrings.xml"] = shared
	}
	return parts
}

// xlsxZip is the workbook of xlsxParts, open.
func xlsxZip(t *testing.T, sheet, shared string) *zip.Reader {
	t.Helper()
	data := zipData(t, xlsxParts(sheet, shared))
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// A number format is applied to every cell of its style: a code of a megabyte over 10,000
// cells (a 28 KB file) took 60 s of CPU. Codes are kept to Excel's 255 bytes.
func TestLongFormatCodeIsClipped(t *testing.T) {
	t.Parallel()
	styles := `<styleSheet><numFmts><numFmt numFmtId="200" formatCode="0.` + strings.Repeat("0", 1<<20) +
		`"/></numFmts><cellXfs><xf numFmtId="200"/><xf numFmtId="2"/></cellXfs></styleSheet>`
	formats, err := cellFormats([]byte(styles))
	if err != nil || len(formats) != 2 || len(formats[0]) != 255 || formats[1] != "0.00" {
		t.Fatalf("%d formats, the first of %d bytes, %v", len(formats), len(formats[0]), err)
	}
}

// A cell far right in each of many rows would allocate the whole width of every row (18,278
// cells, 292 KB, for 35 bytes of XML): a 2.5 MB file of them ran the process out of memory, a
// fatal error no recover catches. The grid is refused as it grows past what could be kept.
func TestXLSXWideRowsRefused(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	var sheet strings.Builder
	sheet.WriteString(`<worksheet><sheetData><c r="A300" t="str"><v>x</v></c>`)
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&sheet, `<c r="ZZZ%d" t="str"><v>x</v></c>`, i)
	}
	sheet.WriteString(`</sheetData></worksheet>`)
	if _, err := xlsxText(xlsxZip(t, sheet.String(), "")); err == nil || !strings.Contains(err.Error(), "spread past the sheet bound") {
		t.Fatalf("got %v, want the grid refused as it grows", err)
	}
}

// A workbook may name one part for any number of sheets: 200 sheets naming one part of 60 MB
// (a 62 KB file) parsed 12 GB of XML, minutes of CPU. Each part is read once, and all of them
// within maxOfficeXMLTotal.
func TestOfficePartsAreReadOnceWithinATotal(t *testing.T) {
	t.Parallel()
	sheet := `<worksheet><sheetData><c r="A1" t="str"><v>x</v></c></sheetData></worksheet>`
	zr := xlsxZip(t, sheet, "")
	// Two sheets naming the same part.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"xl/workbook.xml":            `<workbook><sheets><sheet name="A" id="r1"/><sheet name="B" id="r1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="r1" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml":   sheet,
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	if zr2, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err != nil {
		t.Fatal(err)
	} else if _, err := xlsxText(zr2); err == nil || !strings.Contains(err.Error(), "is named twice") {
		t.Fatalf("two sheets naming one part: %v", err)
	}
	if _, err := xlsxText(zr); err != nil {
		t.Fatalf("one sheet: %v", err)
	}
	// Five parts of a part's bound each: the fifth passes the total (checked with a bound of
	// 1 MB: 320 MB of inflating took 28 s under the race detector).
	if z := newOfficeZip(zr); z.part != maxOfficeXML || z.total != maxOfficeXMLTotal || z.left != z.total {
		t.Fatalf("an Office zip's bounds: %d, %d, %d", z.part, z.total, z.left)
	}
	const part = 1 << 20
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestSpeed)
	zeros := make([]byte, part)
	fw.Write(zeros)
	fw.Close()
	buf.Reset()
	zw = zip.NewWriter(&buf)
	for i := range 5 {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("p%d", i), Method: zip.Deflate,
			CRC32: crc32.ChecksumIEEE(zeros), CompressedSize64: uint64(z.Len()), UncompressedSize64: part})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(z.Bytes())
	}
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	parts := officeZipWithin(zr, part, maxOfficeXMLTotal/maxOfficeXML*part)
	for i := range 5 {
		_, err := parts.file(fmt.Sprintf("p%d", i))
		if want := i == 4; (err != nil) != want || want && !strings.Contains(err.Error(), "in all") {
			t.Fatalf("part %d: %v", i, err)
		}
	}
}
