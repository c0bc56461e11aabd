package paper

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
)

// FuzzExtract feeds arbitrary bytes to the extractor: it may fail, but only
// with an error, never a panic. Seeds are generated PDFs and truncated and
// bit-flipped copies of the smallest real paper; crashers found by
// `go test -fuzz FuzzExtract` are kept in testdata/fuzz/FuzzExtract.
func FuzzExtract(f *testing.F) {
	f.Add(textPDF("Hello fuzz", "second line"))
	f.Add(minimalPDF("BT /F1 10 Tf 0 1 -1 0 100 100 Tm (rotated) Tj ET"))
	f.Add(minimalPDF("q 1 0 0 1 10 10 cm BT /F1 9 Tf [(A) -300 (B)] TJ ET Q /X0 Do"))
	if real, err := os.ReadFile(paperPath(f, "jo_japanese_vertical")); err == nil {
		f.Add(real)
		for _, cut := range []int{len(real) / 4, len(real) / 2, len(real) - 10} {
			f.Add(real[:cut])
		}
		for _, at := range []int{20, 300, len(real) / 2, len(real) - 40} {
			flipped := bytes.Clone(real)
			flipped[at] ^= 0x55
			f.Add(flipped)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), Options{})
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) && !errors.Is(err, context.Canceled) && doc != nil {
				t.Fatalf("error with a document: %v", err)
			}
			return
		}
		_ = doc.Text()
		_ = doc.Markdown()
	})
}
