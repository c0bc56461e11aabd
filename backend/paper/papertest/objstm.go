package papertest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strings"
)

// EscapedObjStmBomb writes a one-page PDF whose font lives in an object stream labelled
// "/Type /Obj#53tm /Subtype /Image": the library reads the escaped name as /ObjStm, a scan
// matching the literal text sees an image it need not inflate. After the font the stream
// inflates to inflated bytes (rounded up to 64 KB) of spaces.
func EscapedObjStmBomb(w io.Writer, inflated int64) error {
	return disguisedObjStms(w, "/Type /Obj#53tm /Subtype /Image", 1, 1, inflated, false)
}

// ObjStmRereads writes pages pages that each show a line in each of streams fonts, every
// font in an object stream of its own padded with inflated bytes (rounded up to 64 KB) of
// spaces: behind the padding when behind is set (to reach the font, a reader inflates it all),
// else in front of it. The streams' /Type is an indirect reference to the name /ObjStm and
// their /Subtype is /Image, so that no label on the stream says what it is. Past what the
// library keeps of object streams (64 MB), each page inflates the rest again.
func ObjStmRereads(w io.Writer, streams, pages int, inflated int64, behind bool) error {
	return disguisedObjStms(w, "/Type 3 0 R /Subtype /Image", streams, pages, inflated, behind)
}

// disguisedObjStms writes the files of EscapedObjStmBomb and ObjStmRereads; label is the
// object streams' /Type and /Subtype (object 3 is the name /ObjStm). Padding in front of the
// fonts may be gigabytes (deflateRepeat); behind them it is compressed whole.
func disguisedObjStms(w io.Writer, label string, streams, pages int, inflated int64, behind bool) error {
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
		chunk := bytes.Repeat([]byte{' '}, 64<<10)
		chunks := (inflated + int64(len(chunk)) - 1) / int64(len(chunk))
		head := fmt.Sprintf("%d 0\n", fontID(k))
		var data bytes.Buffer
		if behind {
			head = fmt.Sprintf("%d %d\n", fontID(k), chunks*int64(len(chunk)))
			zw := zlib.NewWriter(&data)
			zw.Write([]byte(head))
			for range chunks {
				zw.Write(chunk)
			}
			zw.Write([]byte(font + "\n"))
			zw.Close()
		} else if err := deflateRepeat(&data, []byte(head+font+"\n"), chunk, chunks); err != nil {
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
	return b.finishXRef(func(obj int) int { return inStream[obj] }, "")
}
