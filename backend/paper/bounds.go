package paper

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/ledongthuc/pdf"
)

// Resource bounds of one extraction. A PDF is mostly compressed streams, and a small file can
// hold a stream that inflates to gigabytes; its page tree can be huge or loop. With these
// bounds any input extracts in memory under ~512 MB and in time linear in its size (see
// TestHostilePDFs and docs/PAPER.md for the figures).
const (
	// maxStreamInflate bounds what one stream inflates to.
	maxStreamInflate = 256 << 20
	// An object stream is inflated again from its start for every object ledongthuc/pdf
	// reads from it (it keeps no cache), so it is bounded in size and, past a small floor, in
	// ratio: each byte the library reads then costs at most maxObjStmRatio inflated bytes.
	// Real papers' object streams inflate 3–10 times, to some tens of KB in all.
	maxObjStmInflate = 2 << 20
	objStmRatioFloor = 256 << 10
	maxObjStmRatio   = 20
	// What ledongthuc/pdf reads of the file (every object it resolves, again each time) is
	// bounded to readRatio times the file plus readFloor: real papers read 3–11 times, 20,000
	// one-line pages up to 60 times (a 4 KB read per small object).
	readRatio = 128
	readFloor = 4 << 20
	// Every file may inflate to minInflate in all, a larger one to inflateRatio times its
	// size, never to more than maxInflate: real papers inflate 2–20 times, a page of
	// flat-coloured image far more, a bomb a thousand times.
	minInflate   = 256 << 20
	inflateRatio = 100
	maxInflate   = 2 << 30
	// pdfcpu repairs a file in memory: the file, its decoded object streams and about 3.5 KB
	// per object (a 5 MB file of 60,000 objects took 254 MB). Larger files are not repaired.
	maxRepairSize    = 128 << 20
	maxRepairObjects = 100_000
	maxRepairObjStm  = 64 << 20
	// A content stream's tokens: the lexer holds one token whole, the operand stack holds
	// every operand up to the next operator, and a shown string becomes one glyph per byte.
	maxToken    = 1 << 20
	maxString   = 256 << 10
	maxOperands = 1 << 16
	// Glyphs kept per page and per document (a dense page has 5,000).
	maxPageGlyphs = 100_000
	maxDocGlyphs  = 8_000_000
)

// bounds are the budgets of one extraction that depend on the file or that tests shrink.
type bounds struct {
	inflate int64 // inflated bytes in all, and content bytes read in all
	glyphs  int64 // glyphs kept in all
	repair  int64 // the largest file handed to pdfcpu for repair
	read    int64 // bytes the PDF library may read (0: unbounded)
}

// repairable says why a file of size bytes with stats may not go to pdfcpu, or nil.
func (b *bounds) repairable(size int64, st fileStats) error {
	switch {
	case size > b.repair:
		return fmt.Errorf("a file over %d MB is not repaired in memory", b.repair>>20)
	case st.objects > maxRepairObjects:
		return fmt.Errorf("a file of over %d objects is not repaired in memory", maxRepairObjects)
	case st.objStm > maxRepairObjStm:
		return fmt.Errorf("a file whose object streams inflate to over %d MB is not repaired in memory", maxRepairObjStm>>20)
	case st.streams > 2*st.objects+64:
		// pdfcpu's repair looks back for the dictionary of every "stream" it meets in an
		// object's bytes: quadratic in keywords planted outside objects (a 1 MB file of them
		// took 112 s).
		return fmt.Errorf("a file with %d stream keywords for %d objects is not repaired", st.streams, st.objects)
	}
	return nil
}

func defaultBounds(size int64) *bounds {
	return &bounds{
		inflate: min(maxInflate, max(minInflate, size*inflateRatio)),
		glyphs:  maxDocGlyphs,
		repair:  maxRepairSize,
		read:    min(size, maxInflate)*readRatio + readFloor,
	}
}

// libraryLimits bound what ledongthuc/pdf itself decodes, whatever a stream's dictionary
// says (the pre-scan goes by labels, which name escapes or indirect values can disguise):
// each stream to maxStreamInflate, each object stream to maxObjStmInflate, and all of them,
// re-reads included, to the content budget plus as much again for everything else.
func libraryLimits(inflate int64) pdf.Limits {
	return pdf.Limits{Stream: maxStreamInflate, ObjStm: maxObjStmInflate, Total: 2 * inflate}
}

// overLimit is the error for a file refused by a bound: its kind is ErrTooLarge, and
// errors.Is finds ErrCorrupt too (the kind the UI already knows).
func overLimit(reason string) error { return NewError(ErrTooLarge, reason, "") }

const tooLargeHint = "the file may be made to exhaust memory; if it is genuine, re-export or split it (qpdf --pages) and import the parts"

// budget counts bytes against a limit shared by the page workers.
type budget struct {
	left  atomic.Int64
	limit int64
}

func newBudget(limit int64) *budget {
	b := &budget{limit: limit}
	b.left.Store(limit)
	return b
}

// take spends n bytes and reports whether the budget still holds.
func (b *budget) take(n int64) bool { return b.left.Add(-n) >= 0 }

func (b *budget) err() error {
	return overLimit(fmt.Sprintf("its content inflates to more than %d MB", b.limit>>20))
}

// fileStats is what checkInflation saw of the file, for deciding whether to repair it.
type fileStats struct {
	objects int   // " obj" keywords: the objects pdfcpu would load
	streams int   // "stream" keywords (two per stream object: stream, endstream)
	objStm  int64 // bytes the object streams inflate to
}

// checkInflation inflates every zlib stream in the raw file once, keeping nothing, and
// refuses the file when one stream inflates past its bound or all of them past limit. It
// looks for the data after each "stream" keyword itself, so the bound holds for whatever
// later reads the file (ledongthuc/pdf streams it, pdfcpu decodes it in memory). Streams
// nested in another's stored bytes are inflated too, and count: the work stays within
// size + limit.
//
// Images and embedded font programs are inflated only when images is set: ledongthuc/pdf
// never reads them for text; images are most of a paper's compressed bytes (skipping them
// halved the time of extracting a paper with figures), font programs most of the rest
// (three quarters of what a paper without figures inflated here). Whatever the library does
// read is bounded as it reads: content streams and CMaps through the lexer, checkContent and
// counter, object and cross-reference streams here (a dictionary that claims to be an image
// or a font program too is still checked). pdfcpu, which decodes in memory, gets a file only
// after a check with images.
func checkInflation(r io.ReaderAt, size, limit int64, images bool) (fileStats, error) {
	var st fileStats
	spent := newBudget(limit)
	var zr io.ReadCloser
	raw := &countingReaderAt{}
	src := bufio.NewReaderSize(nil, 4096)
	dict := make([]byte, 512) // an object stream's dictionary is some 100 bytes
	sink := make([]byte, 32<<10)
	// The file is read in chunks, each with the first bytes of the next: a keyword that
	// starts in a chunk is read whole with it. A chunk of 1 MB was most of what extracting a
	// paper of 0.7 MB allocated past its pages (specter: 0.7 of 6.6 MB).
	const chunkSize, overlap = 64 << 10, 8
	chunk := make([]byte, min(size, chunkSize)+overlap) // a small file, a small buffer
	for base := int64(0); base < size; base += chunkSize {
		n, err := r.ReadAt(chunk[:min(int64(len(chunk)), size-base)], base)
		if err != nil && !errors.Is(err, io.EOF) {
			return st, fmt.Errorf("read paper: %w", err)
		}
		data := chunk[:n]
		// " obj" starting in the chunk: ending at most 3 bytes past it.
		st.objects += bytes.Count(data[:min(n, chunkSize+3)], []byte(" obj"))
		for i := 0; ; {
			j := bytes.Index(data[i:], []byte("stream"))
			if j < 0 || int64(i+j) >= chunkSize { // past the chunk: the next one finds it
				break
			}
			at := base + int64(i+j) + 6
			i += j + 6
			st.streams++
			start, ok := streamStart(r, at, size)
			if !ok {
				continue
			}
			// One reader of each kind is reused: the keyword may be planted a million times.
			raw.r, raw.n = io.NewSectionReader(r, start, size-start), 0
			src.Reset(raw)
			if zr == nil {
				if zr, err = zlib.NewReader(src); err != nil {
					zr = nil
					continue
				}
			} else if zr.(zlib.Resetter).Reset(src, nil) != nil {
				continue
			}
			cap := int64(maxStreamInflate)
			objStm, unread := streamKind(r, base+int64(i-6), dict)
			if unread && !images {
				continue
			}
			if objStm {
				cap = maxObjStmInflate
			}
			var got int64
			for {
				m, rerr := zr.Read(sink)
				got += int64(m)
				if got > cap {
					return st, overLimit(fmt.Sprintf("a stream at byte %d inflates to more than %d MB", start, cap>>20))
				}
				if objStm && got > objStmRatioFloor && got > maxObjStmRatio*raw.n {
					return st, overLimit(fmt.Sprintf("an object stream at byte %d inflates more than %d times", start, maxObjStmRatio))
				}
				if !spent.take(int64(m)) {
					return st, spent.err()
				}
				if rerr != nil {
					break // the end of the stream, or damaged data: either way it stops here
				}
			}
			if objStm {
				st.objStm += got
			}
		}
	}
	return st, nil
}

// streamStart finds where a stream's data begins after the "stream" keyword ending at at:
// after CRLF or LF (the standard), or a lone CR or spaces that lenient readers accept. It
// reports false unless the data starts like a zlib stream.
func streamStart(r io.ReaderAt, at, size int64) (int64, bool) {
	var head [8]byte
	n, _ := r.ReadAt(head[:min(int64(len(head)), size-at)], at)
	k := 0
	for k < n && k < 4 && (head[k] == ' ' || head[k] == '\r' || head[k] == '\n') {
		k++
	}
	if k+2 > n {
		return 0, false
	}
	cmf, flg := head[k], head[k+1]
	if cmf&0x0f != 8 || (uint16(cmf)<<8|uint16(flg))%31 != 0 {
		return 0, false
	}
	return at + int64(k), true
}

// streamKind reports whether the dictionary just before the "stream" keyword at kw declares
// an object stream, and whether it declares a stream ledongthuc/pdf does not read for text
// (an image, or a font program: FontFile and FontFile2 streams carry /Length1, FontFile3
// ones a /Subtype of their own) that is neither an object stream nor a cross-reference
// stream; buf is scratch space, as long as the dictionary looked at.
func streamKind(r io.ReaderAt, kw int64, buf []byte) (objStm, unread bool) {
	from := max(0, kw-int64(len(buf)))
	buf = buf[:kw-from]
	n, _ := r.ReadAt(buf, from)
	buf = buf[:n]
	if o := bytes.LastIndex(buf, []byte(" obj")); o >= 0 {
		buf = buf[o:]
	}
	// Names are matched as the library reads them: /Obj#53tm is /ObjStm, /#49mage /Image.
	buf = unescapeNames(buf)
	objStm = bytes.Contains(buf, []byte("/ObjStm"))
	unread = !objStm && !bytes.Contains(buf, []byte("/XRef")) &&
		(bytes.Contains(buf, []byte("/Subtype/Image")) || bytes.Contains(buf, []byte("/Subtype /Image")) ||
			bytes.Contains(buf, []byte("/Length1")) || bytes.Contains(buf, []byte("/Type1C")) ||
			bytes.Contains(buf, []byte("/CIDFontType0C")) || bytes.Contains(buf, []byte("/OpenType")))
	return objStm, unread
}

// unescapeNames decodes the #xx escapes of PDF names in buf, in place (a decoded name is
// never longer); text without '#' is returned as it is. It is the library's decoding
// (lex.go readName) applied to the whole dictionary text, strings too: a label that only
// appears after decoding a string was as easy to write literally, and whatever the label,
// the library bounds what it inflates itself (libraryLimits).
func unescapeNames(buf []byte) []byte {
	i := bytes.IndexByte(buf, '#')
	if i < 0 {
		return buf
	}
	out := buf[:i]
	for ; i < len(buf); i++ {
		c := buf[i]
		if c == '#' && i+2 < len(buf) {
			if h, l := hexDigit(buf[i+1]), hexDigit(buf[i+2]); h >= 0 && l >= 0 {
				out = append(out, byte(h<<4|l))
				i += 2
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func hexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// countingReaderAt reads r from its start, counting the bytes.
type countingReaderAt struct {
	r *io.SectionReader
	n int64
}

func (c *countingReaderAt) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readBudget bounds what ledongthuc/pdf reads of the file (or of its repaired copy): past it
// every read fails (the library panics, the page fails) and over is set, which refuses the
// whole file.
type readBudget struct {
	left  atomic.Int64
	limit int64
	over  atomic.Bool
}

func newReadBudget(limit int64) *readBudget {
	b := &readBudget{limit: limit}
	b.left.Store(limit)
	return b
}

// on returns r with its reads counted against b; a nil budget returns r.
func (b *readBudget) on(r io.ReaderAt) io.ReaderAt {
	if b == nil {
		return r
	}
	return budgetedReader{r, b}
}

func (b *readBudget) spent() bool { return b != nil && b.over.Load() }

func (b *readBudget) err() error {
	return overLimit(fmt.Sprintf("reading it takes more than %d MB (%d times its size)", b.limit>>20, readRatio))
}

type budgetedReader struct {
	r io.ReaderAt
	b *readBudget
}

func (br budgetedReader) ReadAt(p []byte, off int64) (int, error) {
	if br.b.left.Add(-int64(len(p))) < 0 {
		br.b.over.Store(true)
		return 0, fmt.Errorf("read budget of %d MB spent", br.b.limit>>20)
	}
	return br.r.ReadAt(p, off)
}
