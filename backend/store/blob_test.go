package store

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/tofu-research/tofu/backend/testtools"
)

func TestBlobRoundTrip(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 10<<20+12345) // 10 MB and a partial last chunk
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.UintN(256))
	}
	n, err := st.PutBlob("paper/x/pdf", bytes.NewReader(data))
	if err != nil || n != int64(len(data)) {
		t.Fatalf("PutBlob = %d, %v", n, err)
	}
	if _, err := st.PutBlob("other", bytes.NewReader([]byte("small"))); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Blob("paper/x/pdf")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes (err %v), want %d identical", len(got), err, len(data))
	}
	// Seek and ReadAt across a chunk boundary.
	if _, err := r.Seek(BlobChunk-3, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(r, buf); err != nil || !bytes.Equal(buf, data[BlobChunk-3:BlobChunk+7]) {
		t.Fatalf("read after seek: %v", err)
	}
	if _, err := r.ReadAt(buf, 3*BlobChunk-5); err != nil || !bytes.Equal(buf, data[3*BlobChunk-5:3*BlobChunk+5]) {
		t.Fatalf("ReadAt: %v", err)
	}
	if b, err := st.BlobBytes("other"); err != nil || string(b) != "small" {
		t.Fatalf("other = %q, %v", b, err)
	}

	// Replace with a shorter value: no stale chunks remain.
	if _, err := st.PutBlob("paper/x/pdf", bytes.NewReader([]byte("short"))); err != nil {
		t.Fatal(err)
	}
	if b, _ := st.BlobBytes("paper/x/pdf"); string(b) != "short" {
		t.Fatalf("after replace: %q", b)
	}
	if err := st.DeleteBlob("paper/x/pdf"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Blob("paper/x/pdf"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if err := st.DeleteBlob("paper/x/pdf"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if b, _ := st.BlobBytes("other"); string(b) != "small" {
		t.Fatal("deleting one blob touched another")
	}
}

func TestBlobEmpty(t *testing.T) {
	t.Parallel()
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.PutBlob("e", bytes.NewReader(nil)); err != nil || n != 0 {
		t.Fatalf("PutBlob empty = %d, %v", n, err)
	}
	if b, err := st.BlobBytes("e"); err != nil || len(b) != 0 {
		t.Fatalf("BlobBytes = %q, %v", b, err)
	}
}
