package coding

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/xuri/excelize/v2"

	"github.com/tofu-research/tofu/backend/shareddata"
)

func copyPaper(t *testing.T, ws, name string) {
	t.Helper()
	src := shareddata.Require(t, "papers", "elegantpaper_en", "paper.pdf")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadFilesPDF(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{"broken.pdf": "%PDF-1.7\nnot really"})
	copyPaper(t, ws, "paper.pdf")
	tool := NewReadFiles()
	res := call(t, tool, ws, `{"reads":[{"path":"paper.pdf"}]}`)
	if res.IsError || !strings.HasPrefix(res.Text, "== paper.pdf (PDF, ") || !strings.Contains(res.Text, "--- page 1 ---\n") {
		t.Fatalf("whole paper: %.300q", res.Text)
	}
	total := res.Meta.(ReadMeta).Entries[0].Lines
	if total < 2 {
		t.Fatalf("%d pages", total)
	}
	res = call(t, tool, ws, `{"reads":[{"path":"paper.pdf","start":2,"end":2}]}`)
	mustContain(t, res.Text, "pages 2-2 of", "--- page 2 ---")
	if strings.Contains(res.Text, "--- page 1 ---") || strings.Contains(res.Text, "--- page 3 ---") {
		t.Errorf("page 2 only, got %.300q", res.Text)
	}
	if e := res.Meta.(ReadMeta).Entries[0]; e.Start != 2 || e.End != 2 {
		t.Errorf("meta %+v", e)
	}
	res = call(t, tool, ws, `{"reads":[{"path":"broken.pdf"}]}`)
	mustContain(t, res.Text, "== broken.pdf: the PDF is damaged")
}

func TestReadFilesEncryptedPDF(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	copyPaper(t, ws, "plain.pdf")
	in, err := os.ReadFile(filepath.Join(ws, "plain.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	api.DisableConfigDir()
	var enc bytes.Buffer
	if err := api.Encrypt(bytes.NewReader(in), &enc, model.NewAESConfiguration("s3cret", "owner", 256)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "secret.pdf"), enc.Bytes(), 0o644)
	res := call(t, NewReadFiles(), ws, `{"reads":[{"path":"secret.pdf"}]}`)
	mustContain(t, res.Text, "== secret.pdf: the PDF is password-protected: it cannot be read ==")
}

// writeZip writes an Office file from its parts, as Word and PowerPoint lay them out.
func writeZip(t *testing.T, path string, parts map[string]string) {
	t.Helper()
	if err := os.WriteFile(path, zipData(t, parts), 0o644); err != nil {
		t.Fatal(err)
	}
}

// zipData is a zip archive of parts (name → content).
func zipData(t *testing.T, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

func TestReadFilesOffice(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{"corrupt.docx": "PK\x03\x04 not a zip at all"})
	writeZip(t, filepath.Join(ws, "report.docx"), map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml": `<?xml version="1.0" encoding="UTF-8"?><w:document ` + wordNS + `><w:body>` +
			`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Quarterly report</w:t></w:r></w:p>` +
			`<w:p><w:r><w:t xml:space="preserve">Sales grew </w:t></w:r><w:r><w:t>12%.</w:t></w:r></w:p>` +
			`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/></w:numPr></w:pPr><w:r><w:t>First point</w:t></w:r></w:p>` +
			`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Region</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Total</w:t></w:r></w:p></w:tc></w:tr>` +
			`<w:tr><w:tc><w:p><w:r><w:t>North</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>1|2</w:t></w:r></w:p></w:tc></w:tr></w:tbl>` +
			`</w:body></w:document>`,
	})
	slide := func(texts ...string) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody>`)
		for _, t := range texts {
			b.WriteString(`<a:p><a:r><a:t>` + t + `</a:t></a:r></a:p>`)
		}
		b.WriteString(`</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`)
		return b.String()
	}
	writeZip(t, filepath.Join(ws, "deck.pptx"), map[string]string{
		"ppt/slides/slide10.xml": slide("The end"),
		"ppt/slides/slide2.xml":  slide("Method", "We measured it"),
		"ppt/slides/slide1.xml":  slide("Title slide"),
	})
	wb := excelize.NewFile()
	wb.SetSheetRow("Sheet1", "A1", &[]any{"name", "score"})
	wb.SetSheetRow("Sheet1", "A2", &[]any{"ada", 97.5})
	wb.NewSheet("Notes")
	wb.SetCellValue("Notes", "B2", "late entry")
	if err := wb.SaveAs(filepath.Join(ws, "grades.xlsx")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "locked.xlsx"), append(append([]byte{}, cfbMagic...), make([]byte, 504)...), 0o644)

	tool := NewReadFiles()
	res := call(t, tool, ws, `{"reads":[{"path":"report.docx"},{"path":"deck.pptx"},{"path":"grades.xlsx"}]}`)
	mustContain(t, res.Text,
		"== report.docx (docx as text) (",
		"1\t# Quarterly report\n", "\tSales grew 12%.\n", "\t- First point\n",
		"\t| Region | Total |\n", "\t| --- | --- |\n", "\t| North | 1\\|2 |\n",
		"\t--- slide 1 ---\n", "\tTitle slide\n", "\t--- slide 2 ---\n", "\tMethod\n", "\tWe measured it\n", "\t--- slide 3 ---\n", "\tThe end\n",
		"\t--- sheet Sheet1 (2 rows × 2 columns) ---\n", "\t| name | score |\n", "\t| ada | 97.5 |\n",
		"\t--- sheet Notes (2 rows × 2 columns) ---\n", "\t|  | late entry |\n")
	if strings.Index(res.Text, "Title slide") > strings.Index(res.Text, "The end") {
		t.Error("slides out of order")
	}
	// Line ranges apply to the text.
	res = call(t, tool, ws, `{"reads":[{"path":"report.docx","start":1,"end":1}]}`)
	mustContain(t, res.Text, "lines 1-1 of", "1\t# Quarterly report\n")

	res = call(t, tool, ws, `{"reads":[{"path":"locked.xlsx"},{"path":"corrupt.docx"}]}`)
	mustContain(t, res.Text, "== locked.xlsx: the Excel file is password-protected: it cannot be read ==",
		"== corrupt.docx: the Word file is damaged or not in its format")
	if !res.IsError {
		t.Error("both failed, not IsError")
	}
}
