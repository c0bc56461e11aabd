package paper

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/shareddata"
)

// papersDir finds the shared evaluation papers, or fails the test.
func papersDir(t testing.TB) string {
	t.Helper()
	return shareddata.Require(t, "papers")
}

func paperPath(t testing.TB, id string) string {
	return filepath.Join(papersDir(t), id, "paper.pdf")
}

// paperPages opens a shared paper with the library alone and returns its pages.
func paperPages(t testing.TB, id string) []pageRef {
	t.Helper()
	data, err := os.ReadFile(paperPath(t, id))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := newReader(bytes.NewReader(data), int64(len(data)), "", libraryLimits(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := pageTree(rd)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// minimalPDF builds a one-page PDF whose content stream is content, with
// Helvetica as /F1.
func minimalPDF(content string) []byte {
	var b bytes.Buffer
	var offs []int
	obj := func(s string) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), s)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
	obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return b.Bytes()
}

func textPDF(lines ...string) []byte {
	var c bytes.Buffer
	c.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
	for _, l := range lines {
		fmt.Fprintf(&c, "(%s) Tj T*\n", l)
	}
	c.WriteString("ET")
	return minimalPDF(c.String())
}
