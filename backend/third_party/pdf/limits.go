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
	rd   io.Reader
	r    *Reader
	n    int64
	cap  int64
	what string
	err  error
}

// Close does nothing, as the NopCloser it replaces (one allocation a stream, not two).
func (l *limitedReader) Close() error { return nil }

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

// limitState is the part of a Reader that counts against its Limits.
type limitState struct {
	limits    Limits
	inflated  atomic.Int64
	overLimit atomic.Pointer[limitError]
}
