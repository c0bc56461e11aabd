package pdf

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// Patched for Tofu (third_party/README.md): every stream the Reader decodes is bounded as it
// is read, whatever its dictionary calls it, so that no caller's pre-check of the file (which
// can only go by labels) is what stands between a small file and gigabytes of inflation.

// ErrInflateLimit is what a read past one of a Reader's Limits fails with (errors.Is).
var ErrInflateLimit = errors.New("inflate limit")

// Limits bound what a Reader decodes: Stream each stream, ObjStm each object stream (read
// whole into memory), Total all streams together, again each time one is read.
type Limits struct {
	Stream, ObjStm, Total int64
}

// DefaultLimits are the Limits of NewReader and NewReaderEncrypted.
var DefaultLimits = Limits{Stream: 256 << 20, ObjStm: maxKeptObjStm, Total: 2 << 30}

// limitError names the bound a read went past.
type limitError struct{ reason string }

func (e *limitError) Error() string { return e.reason }
func (e *limitError) Unwrap() error { return ErrInflateLimit }

// InflateError returns the first limit a read went past, or nil. Reads past a limit fail,
// and the library turns most read errors into a missing value or a panic, so a caller asks
// here whether the file was refused rather than damaged.
func (r *Reader) InflateError() error {
	if e := r.overLimit.Load(); e != nil {
		return e
	}
	return nil
}

// Inflated returns the bytes the Reader's streams have decoded to so far, re-reads included.
func (r *Reader) Inflated() int64 { return r.inflated.Load() }

func (r *Reader) fail(reason string) error {
	e := &limitError{reason}
	r.overLimit.CompareAndSwap(nil, e)
	return e
}

// limitedReader counts what a decoded stream yields against its cap and the Reader's total.
type limitedReader struct {
	rd        io.Reader
	r         *Reader
	n         int64
	cap       int64
	what      string
	err       error
	inflaters []*inflater // its FlateDecode filters' readers, given back by Close
}

// Close gives the stream's zlib readers back for other streams (inflate.go); the stream
// is not read after. It returns nil, as the NopCloser it replaces.
func (l *limitedReader) Close() error {
	l.release()
	l.rd, l.err = nil, errClosed
	return nil
}

func (l *limitedReader) release() {
	for _, f := range l.inflaters {
		f.release()
	}
	l.inflaters = nil
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.rd.Read(p)
	l.n += int64(n)
	switch {
	case l.n > l.cap:
		l.err = l.r.fail(fmt.Sprintf("%s inflates to more than %d MB", l.what, l.cap>>20))
	case l.r.inflated.Add(int64(n)) > l.r.limits.Total:
		l.err = l.r.fail(fmt.Sprintf("its streams inflate to more than %d MB in all", l.r.limits.Total>>20))
	}
	if l.err != nil {
		return n, l.err
	}
	return n, err
}

// A cross-reference table is a slice indexed by object number, sized by the file's /Size and
// grown to every number a section names: both are claims, and a 1 KB file claiming 200,000,000
// objects made the Reader allocate 6.4 GB (a fatal out-of-memory, which no recover catches).
// Object numbers are bounded by the file's size: half its bytes (an object takes more than two,
// even compressed in an object stream), at least minObjects, never past the 8,388,607 indirect
// objects PDF 32000-1 (annex C) allows. The table then costs at most 16 bytes a file byte.
const (
	minObjects = 1 << 16
	maxObjects = 8_388_607
)

// MaxObjects is how many objects a file of size bytes can hold: the bound of its object
// numbers (for a caller that hands the file to another reader, too).
func MaxObjects(size int64) int64 { return min(maxObjects, max(minObjects, size/2)) }

// checkObjectNumber refuses an object number past what the file can hold.
func (r *Reader) checkObjectNumber(n int64) error {
	limit := MaxObjects(r.end)
	if n < 0 || n >= limit {
		return r.fail(fmt.Sprintf("its cross-reference table numbers an object %d, past the %d objects a file of %d KB can hold", n, limit, max(1, r.end>>10)))
	}
	return nil
}

// limitState is the part of a Reader that counts against its Limits.
type limitState struct {
	limits    Limits
	inflated  atomic.Int64
	overLimit atomic.Pointer[limitError]
}

// Two more claims size a buffer before anything is read, so they are bounded by what a real
// file can need (Patched for Tofu, in read.go):
//   - maxXrefFieldWidth: a cross-reference stream's /W gives each field's width in bytes. A
//     field holds an offset, an object number or a generation, all of which fit in 8 bytes
//     (writers use 1 to 4; decodeInt reads into an int, which a wider field overflows anyway).
//   - maxPredictorColumns: a PNG predictor's /Columns is a row's width; the row is read into
//     two buffers of that size. This library applies it as bytes a row (it ignores /Colors and
//     /BitsPerComponent), and reads it only for cross-reference streams (rows of the sum of
//     /W, under 30 bytes) and page content, never images; 1 MB a row is past any of them
//     (and past a 40,000-pixel CMYK scan line, 160 KB), and costs 2 MB.
const (
	maxXrefFieldWidth   = 8
	maxPredictorColumns = 1 << 20
)
