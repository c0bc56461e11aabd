package papertest

import (
	"fmt"
	"io"
)

// ClaimedObjects writes a one-page PDF whose cross-reference claims an object number far past
// what the file holds, as a reader sizing its table by the claim would allocate gigabytes for
// (it is a few hundred bytes): how is "size" (a cross-reference stream's /Size of 200,000,000),
// "index" (its /Index naming object 1,000,000,000) or "table" (a classic table's subsection
// starting there).
func ClaimedObjects(w io.Writer, how string) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 page, 4 font, 5 content, 6 its length.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	b.obj(font)
	b.text("Claimed objects.")
	switch how {
	case "size":
		return b.finishXRef(nil, "/Size 200000000")
	case "index":
		// The stream's entries: object 0, the six objects, then its own, read as object 10^9.
		return b.finishXRef(nil, fmt.Sprintf("/Index [0 %d 1000000000 1]", len(b.offs)+1))
	case "table":
		return b.finishTable(1, fmt.Sprintf("1000000000 1\n%010d 00000 n \n", b.offs[0]))
	}
	return fmt.Errorf("claimed objects: %q is not size, index or table", how)
}
