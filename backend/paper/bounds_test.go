package paper

import (
	"bytes"
	"strings"
	"testing"
)

// The pre-scan reads the file in chunks: an " obj" or "stream" keyword across the end of a
// chunk is counted once, whichever chunk it starts in, and one near the end of the file too.
func TestScanCountsKeywordsAcrossChunks(t *testing.T) {
	t.Parallel()
	for _, at := range []int{0, 100, 64<<10 - 6, 64<<10 - 3, 64<<10 - 1, 64 << 10, 128<<10 - 2, 200 << 10} {
		data := []byte(strings.Repeat(".", 200<<10+20))
		copy(data[at:], " obj")
		copy(data[at+4:], "stream")
		copy(data[len(data)-10:], " obj")
		st, err := checkInflation(bytes.NewReader(data), int64(len(data)), 1<<20, false)
		if err != nil {
			t.Fatal(err)
		}
		if st.objects != 2 || st.streams != 1 {
			t.Errorf("keywords at byte %d: %d objects and %d streams counted, want 2 and 1", at, st.objects, st.streams)
		}
	}
}
