package papertest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strings"
)

// ClaimedBuffer writes a one-page PDF of a few hundred bytes in which a number sizes a buffer
// a reader allocates before reading anything: how is "xref-width" (a cross-reference stream's
// /W [1 claim 2], the bytes of one entry), "xref-columns" (its PNG predictor's /Columns, the
// bytes of a row) or "content-columns" (the same predictor on the page's content stream).
// The page says "Claimed buffer." in a font, F1.
func ClaimedBuffer(w io.Writer, how string, claim int64) error {
	b := newBuilder(w)
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	b.obj(font)
	switch how {
	case "xref-width":
		b.text("Claimed buffer.")
		return b.finishXRefFlate("", fmt.Sprintf("/W [1 %d 2]", claim))
	case "xref-columns":
		b.text("Claimed buffer.")
		return b.finishXRefFlate(fmt.Sprintf("/DecodeParms << /Predictor 12 /Columns %d >>", claim), "/W [1 4 2]")
	case "content-columns":
		// One row of the PNG "Up" predictor: its tag, then the content.
		content := deflate(append([]byte{2}, "BT /F1 12 Tf 72 720 Td (Claimed buffer.) Tj ET"...))
		b.stream(fmt.Sprintf("/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns %d >>", claim), func(w io.Writer) error {
			_, err := w.Write(content)
			return err
		})
		return b.finish(1)
	}
	return fmt.Errorf("claimed buffer: %q is not xref-width, xref-columns or content-columns", how)
}

// finishXRefFlate is finishXRef with the entries deflated (a predictor is read only after
// the zlib header) and parms, w in the stream's dictionary.
func (b *builder) finishXRefFlate(parms, w string) error {
	xref := b.n
	size := len(b.offs) + 2
	entries := deflate(b.xrefEntries(nil, xref).Bytes())
	b.printf("%d 0 obj\n<< /Type /XRef /Size %d %s /Root 1 0 R /Filter /FlateDecode %s /Length %d >>\nstream\n", size-1, size, w, parms, len(entries))
	b.Write(entries)
	b.printf("\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xref)
	if b.err != nil {
		return b.err
	}
	return b.w.Flush()
}

func deflate(p []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(p) // a bytes.Buffer does not fail
	zw.Close()
	return z.Bytes()
}

// GiantGlyph writes a one-page PDF of twenty lines of text and one glyph at a font size of
// size: a layout that measures the text's width point by point sizes a table by it.
func GiantGlyph(w io.Writer, size int64) error {
	b := newBuilder(w)
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	b.obj(font)
	b.stream("", func(w io.Writer) error {
		for i := range 20 {
			if _, err := fmt.Fprintf(w, "BT /F1 10 Tf 72 %d Td (Line %d of the text on this page.) Tj ET\n", 700-12*i, i+1); err != nil {
				return err
			}
		}
		_, err := fmt.Fprintf(w, "BT /F1 %d Tf 0 100 Td (W) Tj ET", size)
		return err
	})
	return b.finish(1)
}

// CIDWidths writes a one-page PDF whose Type0 font's /W array repeats the range
// "0 65535 500" ranges times, each setting all 65,536 widths again, then gives CID 70000 a
// width of 7 alone.
func CIDWidths(w io.Writer, ranges int) error {
	b := newBuilder(w)
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	b.obj("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X " +
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /W [" + strings.Repeat("0 65535 500 ", ranges) + "70000 [7]] >>] >>")
	b.stream("", func(w io.Writer) error {
		_, err := io.WriteString(w, "BT /F1 12 Tf 72 720 Td <00410042> Tj ET")
		return err
	})
	return b.finish(1)
}

// CMapRange writes a one-page PDF whose font's ToUnicode CMap maps the two-byte codes <0000>
// to <FFFF> with one range to a destination of dst bytes (UTF-16 "A"s): a reader copying the
// destination for each code holds 65,536 copies. After it come more ranges for the one-byte
// codes: four of <00> to <FF> and then <41> to <41>, mapped to "X", which a reader whose
// ranges wrap past <FF> never reaches.
func CMapRange(w io.Writer, dst int) error {
	b := newBuilder(w)
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	b.obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 7 0 R >>")
	b.text("CMap ranges.")
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 2 begincodespacerange <00> <FF> <0000> <FFFF> endcodespacerange\n" +
		"1 beginbfrange <0000> <FFFF> <" + strings.Repeat("0041", dst/2) + "> endbfrange\n" +
		"5 beginbfrange <00> <FF> <0041> <00> <FF> <0041> <00> <FF> <0041> <00> <FF> <0041> <41> <41> <0058> endbfrange\n" +
		"endcmap CMapName currentdict /CMap defineresource pop end end"
	b.stream("", func(w io.Writer) error {
		_, err := io.WriteString(w, cmap)
		return err
	})
	return b.finish(1)
}
