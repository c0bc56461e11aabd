package paper

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/paper/papertest"
)

// A number in the file that sizes a buffer before anything is read is bounded by what a real
// file needs (third_party/pdf limits.go): a cross-reference stream's /W widths (one entry) and
// a PNG predictor's /Columns (one row, twice). A 600-byte file claiming 4,000,000,000 of
// either ended the process with a fatal out-of-memory, which no recover catches. The claim
// here is 256 MB, so that without the bound the test fails on what was allocated rather than
// taking the test binary down. Not parallel: it measures the allocations of one read.
func TestClaimedBuffersAreBounded(t *testing.T) {
	for _, how := range []string{"xref-width", "xref-columns", "content-columns"} {
		var b bytes.Buffer
		if err := papertest.ClaimedBuffer(&b, how, 1<<28); err != nil {
			t.Fatal(err)
		}
		data := b.Bytes()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var err error
		if how == "content-columns" {
			_, err = extractBytes(data, Options{}) // the page's only stream cannot be read
		} else {
			// The library alone: a file it refuses goes to pdfcpu, which has bounds of its own.
			_, err = newReader(bytes.NewReader(data), int64(len(data)), "", libraryLimits(64<<20))
		}
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s (%d bytes): %v; %.1f MB allocated", how, len(data), err, float64(alloc)/(1<<20))
		if alloc > 16<<20 {
			t.Errorf("%s: a claim of 256 MB allocated %d MB", how, alloc>>20)
		}
		if err == nil {
			t.Errorf("%s: read, want it refused", how)
		}
	}
	// What the library refuses as malformed, pdfcpu rebuilds from the objects.
	var b bytes.Buffer
	if err := papertest.ClaimedBuffer(&b, "xref-width", 1<<28); err != nil {
		t.Fatal(err)
	}
	if doc, err := extractBytes(b.Bytes(), Options{}); err != nil || !strings.Contains(doc.Text(), "Claimed buffer.") {
		t.Errorf("xref-width: %v, want the page read after repair", err)
	}
}

// Columns are found by measuring the text's width point by point: one glyph at a font size of
// 10^9 (a 900-byte file) asked for a 4 GB table, a fatal out-of-memory. Text wider than any
// page is not looked at for columns. The size here is 10^7 (a 38 MB table), so that without
// the bound the test fails on what was allocated. Not parallel: it measures allocations.
func TestGiantGlyphIsNotMeasured(t *testing.T) {
	var b bytes.Buffer
	if err := papertest.GiantGlyph(&b, 10_000_000); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	doc, err := extractBytes(b.Bytes(), Options{})
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes: %.1f MB allocated", b.Len(), float64(alloc)/(1<<20))
	if err != nil || !strings.Contains(doc.Text(), "Line 20 of the text") {
		t.Fatalf("%v, want the page read", err)
	}
	if alloc > 16<<20 {
		t.Errorf("a glyph at a font size of 10^7 allocated %d MB", alloc>>20)
	}
	// At 10^16 the table's make panicked ("len out of range") on a page worker, where no
	// recover reached: the process ended. The page is now read either way, and a panic in
	// its layout would be the page's error (readPage).
	b.Reset()
	if err := papertest.GiantGlyph(&b, 10_000_000_000_000_000); err != nil {
		t.Fatal(err)
	}
	if doc, err := extractBytes(b.Bytes(), Options{}); err != nil || !strings.Contains(doc.Text(), "Line 20 of the text") {
		t.Fatalf("a glyph at a font size of 10^16: %v, want the page read", err)
	}
}

// A CID font's /W ranges each set up to 65,536 widths, and may set the same ones again:
// 10,000 ranges of all of them (a 100 KB file) took 10 s of CPU for one font, 100,000 past a
// minute. At most twice the CIDs a font has are set; what comes after is left out.
func TestCIDWidthsAreBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ranges int
		last   bool // CID 70000, after the ranges, has its width
	}{{1, true}, {3, false}} {
		var b bytes.Buffer
		if err := papertest.CIDWidths(&b, tc.ranges); err != nil {
			t.Fatal(err)
		}
		rd, err := newReader(bytes.NewReader(b.Bytes()), int64(b.Len()), "", libraryLimits(64<<20))
		if err != nil {
			t.Fatal(err)
		}
		pages, err := pageTree(rd)
		if err != nil || len(pages) != 1 {
			t.Fatalf("%d pages, %v", len(pages), err)
		}
		w := parseCIDWidths(pages[0].resources.Key("Font").Key("F1").Key("DescendantFonts").Index(0).Key("W"))
		if _, ok := w[70000]; ok != tc.last || w[65535] != 500 {
			t.Errorf("%d ranges: CID 70000 has a width: %v (want %v); CID 65535: %v", tc.ranges, ok, tc.last, w[65535])
		}
	}
}

// A ToUnicode range copies its destination for every code it spans: one of 1 MB over 65,536
// codes (a 1 MB file) asked for 65 GB of text. A destination is at most 512 bytes (Adobe
// TN 5411); a longer one is left out. A one-byte range to <FF> went round past it 256 times,
// spending the steps of the ranges after it: here the last range, <41> to "X", is read.
func TestCMapRangesAreBounded(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := papertest.CMapRange(&b, 4096); err != nil {
		t.Fatal(err)
	}
	rd, err := newReader(bytes.NewReader(b.Bytes()), int64(b.Len()), "", libraryLimits(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := pageTree(rd)
	if err != nil || len(pages) != 1 {
		t.Fatalf("%d pages, %v", len(pages), err)
	}
	m := parseToUnicode(pages[0].resources.Key("Font").Key("F1").Key("ToUnicode"), newBudget(64<<20))
	long := 0
	for _, s := range m {
		long = max(long, len(s))
	}
	if long > 512 || m["A"] != "X" || m["\x00"] != "A" {
		t.Errorf("%d codes, the longest text %d bytes; <41> is %q, <00> %q", len(m), long, m["A"], m["\x00"])
	}
}
