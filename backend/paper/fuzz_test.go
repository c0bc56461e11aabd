package paper

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/paper/papertest"
)

// FuzzExtract feeds arbitrary bytes to the extractor: it may fail, but only
// with an error, never a panic. Seeds are generated PDFs (among them the
// hostile ones of papertest) and truncated and bit-flipped copies of the
// smallest real paper; crashers found by
// `go test -fuzz FuzzExtract` are kept in testdata/fuzz/FuzzExtract.
func FuzzExtract(f *testing.F) {
	f.Add(textPDF("Hello fuzz", "second line"))
	f.Add(minimalPDF("BT /F1 10 Tf 0 1 -1 0 100 100 Tm (rotated) Tj ET"))
	f.Add(minimalPDF("q 1 0 0 1 10 10 cm BT /F1 9 Tf [(A) -300 (B)] TJ ET Q /X0 Do"))
	// The hostile shapes of papertest, small enough to fuzz fast: a stream that inflates
	// 300 times, pages under one flat /Kids, loops in /Kids and /Parent, a lattice of kids.
	for _, write := range []func(io.Writer) error{
		func(w io.Writer) error { return papertest.Bomb(w, 256<<10, '0') },
		func(w io.Writer) error { return papertest.ManyPages(w, 20, true) },
		func(w io.Writer) error { return papertest.ManyPages(w, 20, false) },
		papertest.CyclicKids, papertest.ParentLoop,
		func(w io.Writer) error { return papertest.DAGKids(w, 20) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
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

// FuzzScanContent feeds arbitrary content streams to the check that guards pdf.Interpret: it
// ends (the lexer's spins are what it exists to catch), and what it accepts the lexer reads
// to the end.
func FuzzScanContent(f *testing.F) {
	for _, seed := range []string{
		"BT /F1 12 Tf (Hello) Tj ET", "BT <48656c", "(open", "<< /A [1 2 (x)] >> BDC",
		"% comment\n1 0 0 1 0 0 cm", strings.Repeat("1 ", 100), "BI /W 1 ID \x00\xff EI",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if scanContent(bytes.NewReader(data)) != nil {
			return
		}
		doc := minimalPDF("BT /F1 10 Tf 10 10 Td " + string(data) + " ET")
		Extract(context.Background(), bytes.NewReader(doc), int64(len(doc)), Options{})
	})
}
