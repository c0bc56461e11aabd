package papertest

import (
	"fmt"
	"io"
)

// ObjStmSearch writes a one-page PDF whose font the cross-reference puts in an object stream
// that does not hold it, so a reader searches it to the end: how is "n" (the stream claims
// /N claim objects: a search pair by pair would read that many pairs past its end) or
// "extends" (it /Extends itself, so a search of the chain would go round for ever).
func ObjStmSearch(w io.Writer, how string, claim int64) error {
	var extra string
	n := int64(1)
	switch how {
	case "n":
		n = claim
	case "extends":
		extra = "/Extends 3 0 R"
	default:
		return fmt.Errorf("object stream search: %q is not n or extends", how)
	}
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 the object stream (holding object 9, not the font),
	// 4 the font (in object 3, says the cross-reference), 5 content, 6 its length, 7 the page.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [7 0 R] /Count 1 /MediaBox [0 0 612 792] >>")
	data := "9 0\n" + font
	b.offs = append(b.offs, b.n)
	b.printf("3 0 obj\n<< /Type /ObjStm /N %d /First 4 %s /Length %d >>\nstream\n%s\nendstream\nendobj\n", n, extra, len(data), data)
	b.offs = append(b.offs, -1)
	b.text("Font searched for.")
	b.obj("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	return b.finishXRef(func(int) int { return 3 }, "")
}
