package papertest

import (
	"bytes"
	"compress/zlib"
	"hash/adler32"
	"io"
	"testing"
)

// The repeated-block shortcut writes a valid zlib stream of exactly head + n chunks.
func TestDeflateRepeat(t *testing.T) {
	t.Parallel()
	head := []byte("BT (x) Tj ET\n")
	chunk := bytes.Repeat([]byte{'0'}, 1<<16)
	for _, n := range []int64{1, 2, 3, 4, 40} {
		var b bytes.Buffer
		if err := deflateRepeat(&b, head, chunk, n); err != nil {
			t.Fatal(err)
		}
		zr, err := zlib.NewReader(&b)
		if err != nil {
			t.Fatal(err)
		}
		h := adler32.New()
		got, err := io.Copy(h, zr)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err) // a bad checksum is an error here
		}
		if want := int64(len(head)) + n*int64(len(chunk)); got != want {
			t.Fatalf("n=%d: inflated %d bytes, want %d", n, got, want)
		}
	}
}
