package paper

import (
	"bytes"
	"io"
	"testing"
)

// A stream's zlib reader, given back when the stream is closed, serves the next stream
// (third_party/pdf inflate.go): streams read in turn and interleaved each read their own
// data, a closed stream reads nothing more, and a stream closed twice gives its reader back
// once (given twice, two streams would inflate through one reader).
func TestInflatersReused(t *testing.T) {
	t.Parallel()
	pages := paperPages(t, "naacl2006_shinyama")
	if len(pages) < 4 {
		t.Fatalf("%d pages", len(pages))
	}
	content := func(k int) (io.Reader, func()) { return openContent(pages[k].v.Key("Contents")) }
	want := make([][]byte, len(pages))
	for k := range pages {
		r, done := content(k)
		var err error
		if want[k], err = io.ReadAll(r); err != nil || len(want[k]) < 1000 {
			t.Fatalf("page %d: %d bytes, %v", k+1, len(want[k]), err)
		}
		done()
	}
	check := func(what string, k int, got []byte) {
		t.Helper()
		if !bytes.Equal(got, want[k]) {
			t.Errorf("%s: page %d's content read %d bytes, not its %d", what, k+1, len(got), len(want[k]))
		}
	}

	a, doneA := content(0)
	head := make([]byte, 500)
	if _, err := io.ReadFull(a, head); err != nil {
		t.Fatal(err)
	}
	b, doneB := content(1)
	gotB, _ := io.ReadAll(b)
	check("read while another is open", 1, gotB)
	doneB()
	doneB()
	c, doneC := content(2)
	d, doneD := content(3)
	var gotC, gotD []byte
	buf := make([]byte, 256)
	for c != nil || d != nil {
		for _, s := range []struct {
			r   *io.Reader
			got *[]byte
		}{{&c, &gotC}, {&d, &gotD}} {
			if *s.r == nil {
				continue
			}
			n, err := (*s.r).Read(buf)
			*s.got = append(*s.got, buf[:n]...)
			if err != nil {
				*s.r = nil
			}
		}
	}
	check("read in turns with another, after a stream closed twice", 2, gotC)
	check("read in turns with another, after a stream closed twice", 3, gotD)
	doneC()
	doneD()
	rest, _ := io.ReadAll(a)
	check("read on after others were opened and closed", 0, append(head, rest...))
	doneA()
	e, doneE := content(0)
	if _, err := io.ReadFull(e, head); err != nil {
		t.Fatal(err)
	}
	doneE()
	if n, err := e.Read(buf); n != 0 || err == nil || err == io.EOF {
		t.Errorf("a stream closed half read read %d bytes more, %v; want an error", n, err)
	}
}
