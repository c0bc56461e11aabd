package paper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/ledongthuc/pdf"
	"github.com/tofu-research/tofu/backend/paper/papertest"
)

// An object stream labelled an image with an escaped name (/Obj#53tm /Subtype /Image) and
// a gigabyte of padding after its font: the pre-scan reads the names as the library does,
// sees an object stream and refuses it; and the library, reached without the pre-scan,
// stops at its own bound of an object stream, having inflated about 2 MB.
func TestEscapedObjStmBombIsRefused(t *testing.T) {
	t.Parallel()
	data := hostilePDF(t, "escaped-objstm", func(w io.Writer) error { return papertest.EscapedObjStmBomb(w, 1<<30) })
	_, err := extractBytes(data, Options{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "an object stream at byte") {
		t.Errorf("escaped object stream bomb: %v, want the pre-scan's refusal of an object stream", err)
	}

	// Past the pre-scan: the library's bound alone.
	rd, err := newReader(bytes.NewReader(data), int64(len(data)), "", libraryLimits(minInflate))
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := readable(rd)
	if len(pages) == 1 {
		extractPages(context.Background(), &opened{rd: rd, pages: pages}, Options{}, newBudget(minInflate), newBudget(maxDocGlyphs), nil)
	}
	lerr := rd.InflateError()
	if lerr == nil || !strings.Contains(lerr.Error(), "an object stream inflates to more than 2 MB") {
		t.Errorf("library bound: %v", lerr)
	}
	if got := rd.Inflated(); got > maxObjStmInflate+64<<10 {
		t.Errorf("inflated %d bytes, over the 2 MB bound of an object stream", got)
	}
	t.Logf("the library inflated %d bytes of a 1 GB object stream", rd.Inflated())
}

// Thirty-six object streams of 1.9 MB whose labels do not say so (an indirect /Type,
// /Subtype /Image: the pre-scan skips them as images), each holding a font every page uses
// behind its padding. The library keeps 60–64 MB of them and inflates the others again each
// time a page looks a font up (one page: 67 MB; each further page about 8 MB more). With a
// content budget of 64 MB its total bound is 128 MB: one page fits, twenty (some 220 MB,
// which extracted before the bound) are refused.
func TestObjStmRereadsAreRefusedPastTotal(t *testing.T) {
	t.Parallel()
	const pad = 1900 << 10
	fits := hostilePDF(t, "objstm-rereads-1", func(w io.Writer) error { return papertest.ObjStmRereads(w, 36, 1, pad, true) })
	if doc, err := extractBytes(fits, shrunkInflation(fits)); err != nil || len(doc.Pages) != 1 {
		t.Fatalf("1 page of fonts in disguised object streams: %v", err)
	}
	data := hostilePDF(t, "objstm-rereads-20", func(w io.Writer) error { return papertest.ObjStmRereads(w, 36, 20, pad, true) })
	_, err := extractBytes(data, shrunkInflation(data))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "its streams inflate to more than 128 MB in all") {
		t.Fatalf("20 pages: %v, want the library's total bound", err)
	}
	limits := libraryLimits(64 << 20)
	rd := inflatedBy(t, data, limits)
	// Each of at most 8 page workers overshoots by at most one object stream.
	if got := rd.Inflated(); rd.InflateError() == nil || got > limits.Total+8*maxObjStmInflate {
		t.Errorf("inflated %d MB (%v), past the total bound of %d MB", got>>20, rd.InflateError(), limits.Total>>20)
	}
	t.Logf("%d KB file: the library inflated %d MB before refusing it", len(data)>>10, rd.Inflated()>>20)
}

// The same fonts in front of their padding: an object stream the library does not keep is
// inflated again for each lookup only as far as the object, not to its end. Looked up page
// after page, each round of the 36 fonts cost 7.6 MB (the four streams not kept, whole), and
// 200 pages took 26 s of CPU, most of it lexing the padding after each font in search of a
// "stream" keyword no object stream may hold. The fonts are looked up one after another here,
// as one page worker does, so that the figure does not depend on the workers' order.
func TestObjStmRereadsStopAtTheObject(t *testing.T) {
	t.Parallel()
	data := hostilePDF(t, "objstm-front-20", func(w io.Writer) error { return papertest.ObjStmRereads(w, 36, 20, 1900<<10, false) })
	if doc, err := extractBytes(data, shrunkInflation(data)); err != nil || len(doc.Pages) != 20 {
		t.Fatalf("20 pages of fonts in front of padding: %v", err)
	}
	rd, err := newReader(bytes.NewReader(data), int64(len(data)), "", libraryLimits(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	lookUp := func(page int) {
		fonts := rd.Page(page).Resources().Key("Font")
		for k := range 36 {
			if name := fonts.Key(fmt.Sprintf("F%d", k)).Key("BaseFont").Name(); name != "Helvetica" {
				t.Fatalf("page %d, font F%d: BaseFont %q", page, k, name)
			}
		}
	}
	lookUp(1)
	first := rd.Inflated()
	for page := 2; page <= 20; page++ {
		lookUp(page)
	}
	if perPage := (rd.Inflated() - first) / 19; perPage > 256<<10 {
		t.Errorf("each page after the first inflated %d KB: the object streams not kept are inflated past the font", perPage>>10)
	}
	t.Logf("first page: %d MB inflated; each further page %d KB", first>>20, (rd.Inflated()-first)/19>>10)
}

// Page workers ask for the same font at once: the object stream that holds it is inflated once
// and the others wait for the kept copy. Each whole inflation counts against the file's total
// bound, and four workers in lockstep inflated every kept stream four times: make test-stress
// saw TestObjStmRereadsStopAtTheObject's 20 pages, within bounds, refused as past them.
func TestObjStmInflatedOnceWhenAskedAtOnce(t *testing.T) {
	t.Parallel()
	const pad = 1900 << 10
	data := hostilePDF(t, "objstm-front-1", func(w io.Writer) error { return papertest.ObjStmRereads(w, 36, 1, pad, false) })
	rd, err := newReader(bytes.NewReader(data), int64(len(data)), "", libraryLimits(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	fonts := rd.Page(1).Resources().Key("Font")
	before := rd.Inflated()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if name := fonts.Key("F0").Key("BaseFont").Name(); name != "Helvetica" {
				t.Errorf("BaseFont %q", name)
			}
		}()
	}
	close(start)
	wg.Wait()
	if got := rd.Inflated() - before; got > pad*3/2 {
		t.Errorf("eight lookups at once inflated %d KB: the %d KB stream more than once", got>>10, pad>>10)
	}
}

// shrunkInflation is the default bounds of data with a content budget of 64 MB (the library's
// total bound 128 MB).
func shrunkInflation(data []byte) Options {
	b := defaultBounds(int64(len(data)))
	b.inflate = 64 << 20
	return Options{bounds: b}
}

// inflatedBy extracts data's pages through a library reader with limits and returns it, for
// what it inflated.
func inflatedBy(t *testing.T, data []byte, limits pdf.Limits) *pdf.Reader {
	t.Helper()
	rd, err := newReader(bytes.NewReader(data), int64(len(data)), "", limits)
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := readable(rd)
	extractPages(context.Background(), &opened{rd: rd, pages: pages}, Options{}, newBudget(64<<20), newBudget(maxDocGlyphs), nil)
	return rd
}

// The pre-scan reads a dictionary's names as the library does: escaped labels are what they
// decode to, in both directions (an object stream is scanned, an image is not).
func TestStreamKindDecodesNameEscapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dict           string
		objStm, unread bool
	}{
		{"<< /Type /ObjStm /Subtype /Image /N 1 >>", true, false},
		{"<< /Type /Obj#53tm /Subtype /Image /N 1 >>", true, false},
		{"<< /Type /#4f#62#6a#53#74#6d /Subtype /Image >>", true, false},
		{"<< /Subtype /#49mage /Width 10 >>", false, true},
		{"<< /Subt#79pe /Image >>", false, true},
		{"<< /Len#67th1 10 >>", false, true},
		{"<< /Type /XRef /Subtype /Im#61ge >>", false, false},
		{"<< /Subtype /Form /Name (#zz#4) >>", false, false},
	} {
		file := "7 0 obj\n" + tc.dict + "\nstream\n"
		objStm, unread := streamKind(strings.NewReader(file), int64(strings.LastIndex(file, "stream")), make([]byte, 512))
		if objStm != tc.objStm || unread != tc.unread {
			t.Errorf("%s: object stream %v, unread %v; want %v, %v", tc.dict, objStm, unread, tc.objStm, tc.unread)
		}
	}
}
