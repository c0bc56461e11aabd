package paper

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ledongthuc/pdf"
	"github.com/tofu-research/tofu/backend/paper/papertest"
)

// A cross-reference that claims an object number far past what the file holds is refused as
// too large, not followed: the library sized its table by the claim, and a file of a few
// hundred bytes with a /Size of 200,000,000 made it allocate 6.4 GB, a fatal out-of-memory
// that took the whole process (the window with it) down. A file the library cannot open goes
// to pdfcpu, which lists every missing object below the largest number named (2 GB, then the
// same fatal error, for a table naming object 10^9 in a file the library refused for its
// header or its ending): its claims are read from its bytes first.
func TestClaimedObjectsAreRefused(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"size", "index", "table"} {
		var b bytes.Buffer
		if err := papertest.ClaimedObjects(&b, how); err != nil {
			t.Fatal(err)
		}
		_, err := extractBytes(b.Bytes(), Options{})
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "numbers an object") {
			t.Errorf("%s: %v, want the object numbers refused as too large", how, err)
		}
		// The library wants %%EOF in the last 1024 bytes; pdfcpu reads past trailing bytes.
		repair := append(b.Bytes(), bytes.Repeat([]byte("%\n"), 600)...)
		_, err = extractBytes(repair, Options{})
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "it is not repaired") {
			t.Errorf("%s, with 1,200 bytes after %%%%EOF (to repair): %v, want it refused before pdfcpu", how, err)
		}
	}
}

// The claims read from a file's bytes: /Size, /Index pairs and table subsections, not the
// startxref offset, and a number that does not parse counts as past every bound.
func TestLargestClaim(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		data string
		want int64
	}{
		{"xref\n0 7\n0000000000 65535 f \n0000000009 00000 n \ntrailer\n<< /Size 7 >>\nstartxref\n123456789\n%%EOF", 6},
		{"xref\r\n0 3\r\n0000000000 65535 f\r\n40 2\r\n0000000009 00000 n\r\ntrailer << /Size 3 >>", 41},
		{"<< /Type /XRef /Size 12 /Index [0 5 100 3] /W [1 4 2] >>", 102},
		{"<< /Type /XRef /Size 99999999999999999999 >>", 1 << 40},
		{"BT (no cross-reference here) Tj ET", 0},
	} {
		if got := largestClaim([]byte(tc.data)); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.data, got, tc.want)
		}
	}
}

// A cross-reference stream the library refuses to inflate past a bound is reported as that
// bound, not as a malformed file: a label can hide it from the pre-scan (its dictionary may
// say /Subtype /Image), and the repair path would then call it damage.
func TestAnXRefStreamPastTheBoundIsTooLarge(t *testing.T) {
	t.Parallel()
	data := hostilePDF(t, "objstm-400", func(w io.Writer) error { return papertest.ObjStmFont(w, 400, 300<<10) })
	small := libraryLimits(64 << 20)
	small.Stream = 1 << 10 // its cross-reference stream is 2.8 KB: 7 bytes an object
	_, err := newReader(bytes.NewReader(data), int64(len(data)), "", small)
	if !errors.Is(err, pdf.ErrInflateLimit) || !strings.Contains(err.Error(), "inflates to more than") {
		t.Fatalf("opening with a 1 KB stream bound: %v, want the bound", err)
	}
	if _, err := newReader(bytes.NewReader(data), int64(len(data)), "", libraryLimits(64<<20)); err != nil {
		t.Fatalf("the same file within the bounds: %v", err)
	}
}

// An object stream's /N is a claim: a stream of one object claiming 10^9 made each lookup of
// an object not in it read a billion pairs past the header's end (19 s of CPU, a 700-byte
// file). The search ends with the header. Here /N is 2^62: without the bound this test does
// not end. One that /Extends itself is stopped by the read budget.
func TestObjStmSearchEndsWithItsHeader(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"n", "extends"} {
		var b bytes.Buffer
		if err := papertest.ObjStmSearch(&b, how, 1<<62); err != nil {
			t.Fatal(err)
		}
		_, err := extractBytes(b.Bytes(), Options{})
		want := map[string]string{"n": "cannot find object in stream", "extends": "reading it takes more than"}[how]
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", how, err, want)
		}
	}
}
