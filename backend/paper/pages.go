package paper

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// PageRange selects pages, e.g. "1-3,5,9-"; the zero value selects all.
type PageRange []Span

// Span is an inclusive run of pages; To == 0 means "to the last page".
type Span struct {
	From, To int
}

// ParsePages parses "1-3,5", "7-" (to the end) or "-3" (the first three).
// An empty string selects every page.
func ParsePages(s string) (PageRange, error) {
	var out PageRange
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		from, to, isRange := strings.Cut(part, "-")
		var sp Span
		var err error
		if sp.From, err = pageNum(from, 1); err != nil {
			return nil, fmt.Errorf("page range %q: %w", part, err)
		}
		sp.To = sp.From
		if isRange {
			if sp.To, err = pageNum(to, 0); err != nil {
				return nil, fmt.Errorf("page range %q: %w", part, err)
			}
			if sp.To != 0 && sp.To < sp.From {
				return nil, fmt.Errorf("page range %q: end before start", part)
			}
		}
		out = append(out, sp)
	}
	if strings.TrimSpace(s) != "" && len(out) == 0 {
		return nil, fmt.Errorf("page range %q: no pages", s)
	}
	return out, nil
}

func pageNum(s string, empty int) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return empty, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a page number", s)
	}
	return n, nil
}

// Contains reports whether page n (from 1) is selected.
func (r PageRange) Contains(n int) bool {
	if len(r) == 0 {
		return true
	}
	for _, sp := range r {
		if n >= sp.From && (sp.To == 0 || n <= sp.To) {
			return true
		}
	}
	return false
}

// String formats the range the way ParsePages reads it.
func (r PageRange) String() string {
	parts := make([]string, len(r))
	for i, sp := range r {
		switch {
		case sp.To == sp.From:
			parts[i] = strconv.Itoa(sp.From)
		case sp.To == 0:
			parts[i] = strconv.Itoa(sp.From) + "-"
		default:
			parts[i] = strconv.Itoa(sp.From) + "-" + strconv.Itoa(sp.To)
		}
	}
	return strings.Join(parts, ",")
}

// rawPage is a page reduced to lines in reading order, before cross-page cleanup.
type rawPage struct {
	number int
	box    BBox
	lines  []line
	glyphs int
	err    error
}

// extractPages reads the selected pages; spent counts content bytes read, chars glyphs kept
// and reads the file's bytes the library reads, against the document's bounds.
func extractPages(ctx context.Context, file *opened, opts Options, spent, chars *budget, reads *readBudget) (*Document, error) {
	all := file.pages
	var sel []int
	for i := range all {
		if opts.Pages.Contains(i + 1) {
			sel = append(sel, i)
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("page range %s: the PDF has %d pages", opts.Pages, len(all))
	}
	// Pages are read in parallel: the PDF reader only reads through io.ReaderAt; fonts are
	// parsed once for all workers, and each keeps the codes it decoded.
	raws := make([]rawPage, len(sel))
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	fonts := newFontStore(spent)
	for range min(runtime.GOMAXPROCS(0), len(sel), 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{fonts: newFontCache(fonts)}
			for k := range next {
				if ctx.Err() != nil || spent.left.Load() < 0 || chars.left.Load() < 0 || reads.spent() {
					continue // cancelled or over a limit: drain without reading
				}
				raws[k] = readPage(all[sel[k]], sel[k]+1, w, spent, chars)
				mu.Lock()
				done++
				if opts.Progress != nil {
					opts.Progress(done, len(sel))
				}
				mu.Unlock()
			}
		}()
	}
	var cancelled error
	for k := range sel {
		if cancelled = ctx.Err(); cancelled != nil {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
	if cancelled != nil {
		return nil, cancelled
	}
	// A limit reached on any page refuses the whole file: its text would be partial.
	for _, rp := range raws {
		if errors.Is(rp.err, ErrTooLarge) {
			return nil, rp.err
		}
	}
	if spent.left.Load() < 0 {
		return nil, spent.err()
	}
	glyphs := 0
	for _, rp := range raws {
		glyphs += rp.glyphs
	}
	if glyphs == 0 {
		for _, rp := range raws {
			if rp.err != nil {
				return nil, corrupt(rp.err.Error())
			}
		}
		return nil, noText(len(raws))
	}
	doc := &Document{Meta: readMeta(file.rd, len(all))}
	doc.Meta.Repaired = file.repaired
	assemble(doc, raws)
	return doc, nil
}

// worker is what one page worker keeps from page to page: fonts, and buffers whose
// contents no page keeps (a page's lines are new strings).
type worker struct {
	fonts   *fontCache
	lexers  []*lexer
	glyphs  []glyph
	scratch scratch // the layout's working space
}

// readPage interprets one page and lays it out; a panic in either becomes the page's error (a
// limit reached stays recognisable with errors.Is(err, ErrTooLarge)). Pages are read on
// worker goroutines, where Extract's recover does not reach: a panic left here ended the
// process (a glyph 10^16 points wide made the layout's make panic, and the window went down).
func readPage(ref pageRef, number int, w *worker, spent, chars *budget) (rp rawPage) {
	rp.number = number
	rp.box = ref.box
	in := &interpreter{fonts: w.fonts, lexers: w.lexers, glyphs: w.glyphs[:0], spent: spent, chars: chars}
	defer func() { w.lexers, w.glyphs = in.lexers, in.glyphs[:0] }()
	rp.err = recovered(number, func() { in.run(ref) }) // the glyphs read before it stay
	rp.glyphs = len(in.glyphs)
	if err := recovered(number, func() { rp.lines = w.scratch.layoutPage(in.glyphs, rp.box) }); err != nil {
		rp.err = err
	}
	return rp
}

// recovered runs f and returns its panic as the page's error.
func recovered(number int, f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if perr, ok := p.(error); ok && errors.Is(perr, ErrTooLarge) {
				err = perr
				return
			}
			err = fmt.Errorf("page %d: %v", number, p)
		}
	}()
	f()
	return nil
}
