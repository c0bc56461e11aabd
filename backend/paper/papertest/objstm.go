package papertest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// EscapedObjStmBomb writes a one-page PDF whose font lives in an object stream labelled
// "/Type /Obj#53tm /Subtype /Image": the library reads the escaped name as /ObjStm, a scan
// matching the literal text sees an image it need not inflate. After the font the stream
// inflates to inflated bytes (rounded up to 64 KB) of spaces.
func EscapedObjStmBomb(w io.Writer, inflated int64) error {
	return disguisedObjStms(w, "/Type /Obj#53tm /Subtype /Image", 1, 1, inflated)
}

// ObjStmRereads writes pages pages that each show a line in each of streams fonts, every
// font in an object stream of its own padded to inflated bytes (rounded up to 64 KB) of
// spaces. The streams' /Type is an indirect reference to the name /ObjStm and their
// /Subtype is /Image, so that no label on the stream says what it is. Past what the library
// keeps of object streams (64 MB), each page inflates the rest again.
func ObjStmRereads(w io.Writer, streams, pages int, inflated int64) error {
	return disguisedObjStms(w, "/Type 3 0 R /Subtype /Image", streams, pages, inflated)
}

// disguisedObjStms writes the files of EscapedObjStmBomb and ObjStmRereads; label is the
// object streams' /Type and /Subtype (object 3 is the name /ObjStm).
func disguisedObjStms(w io.Writer, label string, streams, pages int, inflated int64) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 the name /ObjStm, 4 content, 5 its length, then per
	// stream the object stream and the font in it, then the pages and the cross-reference
	// stream.
	fontID := func(k int) int { return 7 + 2*k }
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids strings.Builder
	first := 6 + 2*streams
	for i := range pages {
		fmt.Fprintf(&kids, "%d 0 R ", first+i)
	}
	b.obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 612 792] >>", kids.String(), pages))
	b.obj("/ObjStm")
	var show, fonts strings.Builder
	show.WriteString("BT 72 720 Td ")
	for k := range streams {
		fmt.Fprintf(&show, "/F%d 12 Tf (font %d) Tj ", k, k)
		fmt.Fprintf(&fonts, "/F%d %d 0 R ", k, fontID(k))
	}
	show.WriteString("ET")
	b.stream("", func(w io.Writer) error {
		_, err := io.WriteString(w, show.String())
		return err
	})
	inStream := map[int]int{} // object number → its object stream
	for k := range streams {
		head := fmt.Sprintf("%d 0\n", fontID(k))
		var data bytes.Buffer
		chunk := bytes.Repeat([]byte{' '}, 64<<10)
		if err := deflateRepeat(&data, []byte(head+font+"\n"), chunk, (inflated+int64(len(chunk))-1)/int64(len(chunk))); err != nil {
			return err
		}
		b.offs = append(b.offs, b.n)
		id := len(b.offs)
		b.printf("%d 0 obj\n<< %s /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n", id, label, len(head), data.Len())
		b.Write(data.Bytes())
		b.printf("\nendstream\nendobj\n")
		b.offs = append(b.offs, -1)
		inStream[len(b.offs)] = id
	}
	for range pages {
		b.obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Resources << /Font << %s>> >> /Contents 4 0 R >>", fonts.String()))
	}
	// The cross-reference stream: type 1 (offset) or type 2 (in an object stream, index 0).
	xref := b.n
	size := len(b.offs) + 2
	var entries bytes.Buffer
	entries.Write([]byte{0, 0, 0, 0, 0, 0xff, 0xff})
	for i, off := range b.offs {
		if off < 0 {
			entries.WriteByte(2)
			binary.Write(&entries, binary.BigEndian, uint32(inStream[i+1]))
			entries.Write([]byte{0, 0})
			continue
		}
		entries.WriteByte(1)
		binary.Write(&entries, binary.BigEndian, uint32(off))
		entries.Write([]byte{0, 0})
	}
	entries.WriteByte(1)
	binary.Write(&entries, binary.BigEndian, uint32(xref))
	entries.Write([]byte{0, 0})
	b.printf("%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", size-1, size, entries.Len())
	b.Write(entries.Bytes())
	b.printf("\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xref)
	if b.err != nil {
		return b.err
	}
	return b.w.Flush()
}
