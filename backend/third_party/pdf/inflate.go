package pdf

import (
	"bufio"
	"compress/zlib"
	"errors"
	"io"
	"sync"
)

// Patched for Tofu (third_party/README.md): a FlateDecode stream's zlib reader, with the
// buffered reader under it, is given back when the stream's reader is closed, and the next
// stream resets it instead of making its own. Each stream made both afresh: a 32 KB window,
// Huffman tables and a 4 KB buffer, some 20 streams of a paper (0.7 MB of an extraction's
// 8, each a fresh stretch of heap for a one-shot extractor to fault in).
type inflater struct {
	br *bufio.Reader
	zr io.ReadCloser
}

var inflaters sync.Pool

// newInflater returns a zlib reader of rd, reused when one was given back; the error is
// zlib.NewReader's (a bad header).
func newInflater(rd io.Reader) (*inflater, error) {
	f, _ := inflaters.Get().(*inflater)
	if f == nil {
		f = &inflater{br: bufio.NewReader(rd)}
		zr, err := zlib.NewReader(f.br)
		if err != nil {
			return nil, err
		}
		f.zr = zr
		return f, nil
	}
	f.br.Reset(rd)
	if err := f.zr.(zlib.Resetter).Reset(f.br, nil); err != nil {
		f.release()
		return nil, err
	}
	return f, nil
}

// release gives the reader back; it is not read after.
func (f *inflater) release() {
	f.br.Reset(nil) // nothing of the stream is kept from the collector
	inflaters.Put(f)
}

// errClosed is what a stream's reader returns once closed: its zlib reader may be another's.
var errClosed = errors.New("pdf: read of a closed stream")
