// Package papertest writes hostile PDFs for the extractor's resource-bound tests and for
// measuring it (`tofu dev hostile-pdf`): a decompression bomb, very many pages, cyclic trees.
package papertest

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"io"
	"math"
	"math/rand/v2"
	"strings"
)

// Kinds names the generators WriteKind knows, for the command line.
var Kinds = []string{"bomb", "pages", "text-pages", "dense", "objstm", "escaped-objstm", "objstm-rereads", "cyclic-kids", "parent-loop", "dag-kids", "xref-size", "xref-index", "xref-table", "xref-width", "xref-columns", "content-columns", "giant-glyph", "objstm-n", "objstm-extends", "cid-widths", "cmap-range"}

// WriteKind writes the hostile PDF named kind; n is the inflated size in bytes for "bomb"
// and "escaped-objstm", the page count for "pages", "text-pages", "objstm", "objstm-rereads"
// (0: 1 GB, 20,000 pages, 1,000 for objstm-rereads), "dense" (0: 50), and the claimed
// buffer size for "xref-width", "xref-columns" and "content-columns" (0: 4,000,000,000), the
// font size for "giant-glyph" (0: 10^9), the /N of "objstm-n" (0: 10^9), the ranges of
// "cid-widths" (0: 100,000) and the destination bytes of "cmap-range" (0: 1 MB).
func WriteKind(w io.Writer, kind string, n int64) error {
	switch kind {
	case "bomb":
		if n <= 0 {
			n = 1 << 30
		}
		return Bomb(w, n, '0')
	case "pages", "text-pages":
		if n <= 0 {
			n = 20000
		}
		return ManyPages(w, int(n), kind == "text-pages")
	case "dense":
		if n <= 0 {
			n = 50
		}
		return Dense(w, int(n))
	case "objstm":
		if n <= 0 {
			n = 20000
		}
		return ObjStmFont(w, int(n), 1900<<10) // just under the 2 MB bound of an object stream
	case "escaped-objstm":
		if n <= 0 {
			n = 1 << 30
		}
		return EscapedObjStmBomb(w, n)
	case "objstm-rereads":
		if n <= 0 {
			n = 1000
		}
		return ObjStmRereads(w, 36, int(n), 1900<<10, true) // 36 × 1.9 MB: past the 64 MB the library keeps
	case "cyclic-kids":
		return CyclicKids(w)
	case "parent-loop":
		return ParentLoop(w)
	case "dag-kids":
		return DAGKids(w, 64)
	case "xref-size", "xref-index", "xref-table":
		return ClaimedObjects(w, strings.TrimPrefix(kind, "xref-"))
	case "xref-width", "xref-columns", "content-columns":
		if n <= 0 {
			n = 4_000_000_000
		}
		return ClaimedBuffer(w, kind, n)
	case "giant-glyph":
		if n <= 0 {
			n = 1_000_000_000
		}
		return GiantGlyph(w, n)
	case "objstm-n", "objstm-extends":
		if n <= 0 {
			n = 1_000_000_000
		}
		return ObjStmSearch(w, strings.TrimPrefix(kind, "objstm-"), n)
	case "cid-widths":
		if n <= 0 {
			n = 100_000
		}
		return CIDWidths(w, int(n))
	case "cmap-range":
		if n <= 0 {
			n = 1 << 20
		}
		return CMapRange(w, int(n))
	}
	return fmt.Errorf("unknown hostile PDF %q (one of %s)", kind, strings.Join(Kinds, ", "))
}

// builder writes numbered objects and the cross-reference table that finds them.
type builder struct {
	w    *bufio.Writer
	n    int64
	offs []int64
	err  error
}

func newBuilder(w io.Writer) *builder {
	b := &builder{w: bufio.NewWriterSize(w, 1<<16)}
	b.printf("%%PDF-1.4\n")
	return b
}

func (b *builder) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.w.Write(p)
	b.n += int64(n)
	b.err = err
	return n, err
}

func (b *builder) printf(format string, args ...any) { fmt.Fprintf(b, format, args...) }

// obj writes object number len(offs)+1 with body.
func (b *builder) obj(body string) int {
	b.offs = append(b.offs, b.n)
	id := len(b.offs)
	b.printf("%d 0 obj\n%s\nendobj\n", id, body)
	return id
}

// stream writes a stream object whose data comes from fill (already encoded as dict says).
func (b *builder) stream(dict string, fill func(w io.Writer) error) int {
	b.offs = append(b.offs, b.n)
	id := len(b.offs)
	// The length is an indirect object written after the data, so the data can stream.
	b.printf("%d 0 obj\n<< %s /Length %d 0 R >>\nstream\n", id, dict, id+1)
	start := b.n
	if err := fill(b); err != nil && b.err == nil {
		b.err = err
	}
	length := b.n - start
	b.printf("\nendstream\nendobj\n")
	b.obj(fmt.Sprint(length))
	return id
}

// finish writes the cross-reference table and trailer for the catalog object root.
func (b *builder) finish(root int) error { return b.finishTable(root, "") }

// finishTable is finish with more subsections after the objects' (claim, lines of the table).
func (b *builder) finishTable(root int, claim string) error {
	xref := b.n
	b.printf("xref\n0 %d\n0000000000 65535 f \n", len(b.offs)+1)
	for _, o := range b.offs {
		b.printf("%010d 00000 n \n", o)
	}
	b.printf("%strailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", claim, len(b.offs)+1, root, xref)
	if b.err != nil {
		return b.err
	}
	return b.w.Flush()
}

// finishXRef ends the file with a cross-reference stream, as object streams require: each
// object at its offset, or, for an offset of -1, first in the object stream streamOf(its
// number). claim is more of the stream's dictionary, after its /Size (a second /Size wins).
func (b *builder) finishXRef(streamOf func(obj int) int, claim string) error {
	xref := b.n
	size := len(b.offs) + 2
	entries := b.xrefEntries(streamOf, xref)
	b.printf("%d 0 obj\n<< /Type /XRef /Size %d %s /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", size-1, size, claim, entries.Len())
	b.Write(entries.Bytes())
	b.printf("\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xref)
	if b.err != nil {
		return b.err
	}
	return b.w.Flush()
}

// xrefEntries are the rows of a cross-reference stream of /W [1 4 2] for the objects written
// and the stream itself, at offset xref (see finishXRef).
func (b *builder) xrefEntries(streamOf func(obj int) int, xref int64) *bytes.Buffer {
	var entries bytes.Buffer
	entries.Write([]byte{0, 0, 0, 0, 0, 0xff, 0xff})
	for i, off := range b.offs {
		if off < 0 {
			entries.WriteByte(2) // in an object stream, at index 0
			binary.Write(&entries, binary.BigEndian, uint32(streamOf(i+1)))
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
	return &entries
}

// text writes a content stream that shows line at the top of the page in font F1.
func (b *builder) text(line string) int {
	return b.stream("", func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "BT /F1 12 Tf 72 720 Td (%s) Tj ET", line)
		return err
	})
}

const font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// Bomb writes a one-page PDF whose content stream is a FlateDecode stream inflating to
// inflated bytes (rounded up to a megabyte) of fill after a line of text; a run of '0' is
// one endless number token to a PDF lexer. A gigabyte takes about a megabyte, and a moment:
// see deflateRepeat.
func Bomb(w io.Writer, inflated int64, fill byte) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 page, 4 font, 5 content, 6 its length.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	b.obj(font)
	b.stream("/Filter /FlateDecode", func(w io.Writer) error {
		head := "BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n"
		chunks := (max(inflated-int64(len(head)), 1) + bombChunk - 1) / bombChunk
		return deflateRepeat(w, []byte(head), bytes.Repeat([]byte{fill}, bombChunk), chunks)
	})
	return b.finish(1)
}

const bombChunk = 1 << 20

// ImageBomb writes a one-page PDF with a line of text and an image XObject whose data
// inflates to inflated bytes (rounded up to a megabyte). With broken, its cross-reference
// offset is wrong, so that a reader has to repair the file (pdfcpu decodes it in memory).
func ImageBomb(w io.Writer, inflated int64, broken bool) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 page, 4 font, 5 content, 6 its length, 7 image, 8 its length.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Im1 7 0 R >> >> /Contents 5 0 R >>")
	b.obj(font)
	b.stream("", func(w io.Writer) error {
		_, err := io.WriteString(w, "BT /F1 12 Tf 72 720 Td (figure below) Tj ET\nq 100 0 0 100 72 500 cm /Im1 Do Q\n")
		return err
	})
	side := int64(math.Sqrt(float64(inflated)/3)) + 1
	b.stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode", side, side), func(w io.Writer) error {
		return deflateRepeat(w, nil, make([]byte, bombChunk), (inflated+bombChunk-1)/bombChunk)
	})
	if broken {
		b.printf("xref-is-not-here\n")
		b.offs[0] += 3 // the catalog's offset points into its body
	}
	return b.finish(1)
}

// FontBomb writes a one-page PDF with a line of text in a font whose embedded program (a
// FontFile2 stream, as TrueType fonts are embedded) inflates to inflated bytes (rounded up
// to a megabyte). With broken, its cross-reference offset is wrong, as in ImageBomb.
func FontBomb(w io.Writer, inflated int64, broken bool) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 page, 4 font, 5 content, 6 its length, 7 descriptor,
	// 8 font program, 9 its length.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	b.obj("<< /Type /Font /Subtype /TrueType /BaseFont /Embedded /Encoding /WinAnsiEncoding /FontDescriptor 7 0 R >>")
	b.stream("", func(w io.Writer) error {
		_, err := io.WriteString(w, "BT /F1 12 Tf 72 720 Td (embedded font) Tj ET\n")
		return err
	})
	b.obj("<< /Type /FontDescriptor /FontName /Embedded /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 8 0 R >>")
	b.stream(fmt.Sprintf("/Length1 %d /Filter /FlateDecode", inflated), func(w io.Writer) error {
		return deflateRepeat(w, nil, make([]byte, bombChunk), (inflated+bombChunk-1)/bombChunk)
	})
	if broken {
		b.printf("xref-is-not-here\n")
		b.offs[0] += 3 // the catalog's offset points into its body
	}
	return b.finish(1)
}

// deflateRepeat writes a zlib stream of head followed by n copies of chunk without
// compressing n chunks: after a sync flush the compressor is byte-aligned, and once its
// window holds nothing but chunk's repetition, every further copy compresses to the same
// bytes. Those bytes are written n-2 more times, then a final empty block and the Adler-32
// of the whole, combined arithmetically. If two copies ever compress differently it falls
// back to compressing every copy.
func deflateRepeat(w io.Writer, head, chunk []byte, n int64) error {
	var out bytes.Buffer
	fw, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		return err
	}
	step := func(p []byte) ([]byte, error) {
		start := out.Len()
		if _, err := fw.Write(p); err != nil {
			return nil, err
		}
		if err := fw.Flush(); err != nil {
			return nil, err
		}
		return bytes.Clone(out.Bytes()[start:]), nil
	}
	if _, err := w.Write([]byte{0x78, 0xda}); err != nil { // zlib header, best compression
		return err
	}
	var copies [][]byte
	first, err := step(head)
	if err != nil {
		return err
	}
	for i := int64(0); i < min(n, 3); i++ {
		c, err := step(chunk)
		if err != nil {
			return err
		}
		copies = append(copies, c)
	}
	repeat := n > 3 && bytes.Equal(copies[1], copies[2])
	if _, err := w.Write(first); err != nil {
		return err
	}
	for i := int64(0); i < n; i++ {
		var c []byte
		switch {
		case i < int64(len(copies)):
			c = copies[i]
		case repeat:
			c = copies[2]
		default:
			if c, err = step(chunk); err != nil {
				return err
			}
		}
		if _, err := w.Write(c); err != nil {
			return err
		}
	}
	// A final fixed-Huffman block holding only its end code, then the checksum.
	sum := adler32.Checksum(head)
	one := adler32.Checksum(chunk)
	for range n {
		sum = adler32Combine(sum, one, int64(len(chunk)))
	}
	_, err = w.Write([]byte{0x03, 0x00, byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
	return err
}

// adler32Combine is the Adler-32 of A followed by B from theirs and B's length (zlib's
// adler32_combine).
func adler32Combine(a1, a2 uint32, len2 int64) uint32 {
	const base = 65521
	rem := uint64(len2 % base)
	sum1 := uint64(a1 & 0xffff)
	sum2 := rem * sum1 % base
	sum1 += uint64(a2&0xffff) + base - 1
	sum2 += uint64(a1>>16) + uint64(a2>>16) + base - rem
	for sum1 >= base {
		sum1 -= base
	}
	for sum2 >= base {
		sum2 -= base
	}
	return uint32(sum2<<16 | sum1)
}

// ManyPages writes n pages under one /Pages node with a flat /Kids array, every page
// inheriting its resources and media box from that node (so reading a page's attributes
// meets the whole array); withText gives each page a line of its own.
func ManyPages(w io.Writer, n int, withText bool) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 font, then each page and, withText, its content and
	// the content's length.
	per := 1
	if withText {
		per = 3
	}
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids strings.Builder
	for i := range n {
		fmt.Fprintf(&kids, "%d 0 R ", 4+per*i)
	}
	b.obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> >>", kids.String(), n))
	b.obj(font)
	for i := range n {
		if !withText {
			b.obj("<< /Type /Page /Parent 2 0 R >>")
			continue
		}
		b.obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Contents %d 0 R >>", len(b.offs)+2))
		b.text("Page " + letters(i) + " of many.")
	}
	return b.finish(1)
}

// letters spells i in base 26 with lowercase letters, so no two pages read alike (running
// headers are recognised by their text with the digits left out).
func letters(i int) string {
	s := ""
	for {
		s = string(rune('a'+i%26)) + s
		if i /= 26; i == 0 {
			return s
		}
	}
}

// Dense writes n pages that share one content stream of 1,000 lines of 100 characters: the
// most text a page keeps (backend/paper's maxPageGlyphs), to measure memory per character.
func Dense(w io.Writer, n int) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 font, 4 content, 5 its length, 6.. pages.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids strings.Builder
	for i := range n {
		fmt.Fprintf(&kids, "%d 0 R ", 6+i)
	}
	b.obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> >>", kids.String(), n))
	b.obj(font)
	b.stream("", func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("BT /F1 1 Tf 0.8 TL 10 780 Td\n")
		for l := range 1000 {
			line := strings.Repeat(letters(l)+" ", 100)[:100]
			fmt.Fprintf(bw, "(%s) Tj T*\n", line)
		}
		bw.WriteString("ET")
		return bw.Flush()
	})
	for range n {
		b.obj("<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
	}
	return b.finish(1)
}

// CyclicKids writes a page tree whose two /Pages nodes list each other as kids, beside one
// real page.
func CyclicKids(w io.Writer) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 pages (kid of 2, lists 2), 4 page, 5 font, 6 content, 7.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	b.obj("<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 2 0 R] /Count 1 >>")
	b.obj("<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>")
	b.obj(font)
	b.text("Cyclic kids.")
	return b.finish(1)
}

// DAGKids writes a page tree of depth levels where each /Pages node lists the next one
// twice: no cycle, but 2^depth paths to the one page at the bottom.
func DAGKids(w io.Writer, depth int) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2..depth+1 pages nodes, depth+2 page, depth+3 font, depth+4 content.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	for i := range depth {
		next := 3 + i
		b.obj(fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R %d 0 R] /Count 1 >>", next, next))
	}
	page := depth + 2
	b.obj(fmt.Sprintf("<< /Type /Page /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", page+1, page+2))
	b.obj(font)
	b.text("Many paths.")
	return b.finish(1)
}

// ParentLoop writes a valid tree whose page's /Parent chain loops (page → 3 → 4 → 3), with
// the resources and media box only reachable through /Parent in a well-formed file.
func ParentLoop(w io.Writer) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 page, 4 a fake node, 5 font, 6 content, 7.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	b.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> >>")
	b.obj("<< /Type /Page /Parent 4 0 R /Contents 6 0 R >>")
	b.obj("<< /Type /Pages /Parent 4 0 R /Kids [3 0 R] /Count 1 >>")
	b.obj(font)
	b.text("Parent loop.")
	return b.finish(1)
}

// ObjStmFont writes n pages whose font lives at the end of an object stream padded with
// pad bytes of random digits (compressing about 2.3 times, like real data): a PDF reader
// without an object cache inflates the padding again for every page that looks the font up.
// The cross-reference is a stream, as object streams require.
func ObjStmFont(w io.Writer, n, pad int) error {
	b := newBuilder(w)
	// Objects: 1 catalog, 2 pages, 3 the object stream holding 4 (the font), 5 content,
	// 6 its length, 7.. pages, then the cross-reference stream.
	b.obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids strings.Builder
	for i := range n {
		fmt.Fprintf(&kids, "%d 0 R ", 7+i)
	}
	b.obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 612 792] >>", kids.String(), n))
	rng := rand.New(rand.NewPCG(1, 2))
	var data bytes.Buffer
	data.WriteString("4 0\n")
	for range pad {
		data.WriteByte(byte('0' + rng.IntN(10)))
	}
	data.WriteString("\n")
	first := data.Len()
	data.WriteString(font)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(data.Bytes())
	zw.Close()
	b.offs = append(b.offs, b.n)
	b.printf("3 0 obj\n<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n", first, z.Len())
	b.Write(z.Bytes())
	b.printf("\nendstream\nendobj\n")
	b.offs = append(b.offs, -1) // object 4 is in the stream
	b.text("Font in an object stream.")
	for range n {
		b.obj("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	}
	return b.finishXRef(func(int) int { return 3 }, "")
}
