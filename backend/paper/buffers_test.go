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
