package paper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Options tune an extraction; the zero value extracts every page.
type Options struct {
	Pages    PageRange // empty: all pages
	Password string    // user or owner password for encrypted files
	// Progress is called after each page with the number of pages done and
	// the number to do; it runs on the extracting goroutine.
	Progress func(done, total int)

	bounds *bounds // nil: the defaults of bounds.go (tests shrink them)
}

// Open extracts every page of the PDF file at path.
func Open(path string) (*Document, error) {
	return OpenContext(context.Background(), path, Options{})
}

// OpenContext extracts the PDF file at path with options.
func OpenContext(ctx context.Context, path string, opts Options) (*Document, error) {
	return ExtractFile(path, func(r io.ReaderAt, size int64) (*Document, error) { return Extract(ctx, r, size, opts) })
}

// ExtractFile opens the file at path and hands it to extract with its size: OpenContext's
// open for another way of extracting (backend/paper/worker's child).
func ExtractFile(path string, extract func(r io.ReaderAt, size int64) (*Document, error)) (*Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open paper: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open paper: %w", err)
	}
	return extract(f, st.Size())
}

// Extract reads the PDF in r (size bytes) and returns its text in reading
// order. Errors wrap ErrEncrypted, ErrNoText or ErrCorrupt when the input is
// at fault, and ctx.Err() when cancelled between pages. It never panics.
func Extract(ctx context.Context, r io.ReaderAt, size int64, opts Options) (doc *Document, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, corrupt(fmt.Sprintf("parser failure: %v", p))
		}
	}()
	if size <= 0 {
		return nil, corrupt("the file is empty")
	}
	head := make([]byte, min(size, 1024))
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read paper: %w", err)
	}
	if !bytes.Contains(head, []byte("%PDF-")) {
		return nil, NewError(ErrNotPDF, notPDFReason(head), "")
	}
	// Resource bounds (bounds.go): every compressed stream but images is inflated once,
	// keeping nothing, before either PDF library reads the file (images before pdfcpu does).
	b := opts.bounds
	if b == nil {
		b = defaultBounds(size)
	}
	stats, err := checkInflation(r, size, b.inflate, false)
	if err != nil {
		return nil, err
	}
	var reads *readBudget
	if b.read > 0 {
		reads = newReadBudget(b.read)
	}
	file, err := openReader(r, size, opts.Password, b.repairable(size, stats), b.inflate, reads)
	if reads.spent() {
		return nil, reads.err()
	}
	if err != nil {
		return nil, err
	}
	doc, err = extractPages(ctx, file, opts, newBudget(b.inflate), newBudget(b.glyphs), reads)
	if reads.spent() {
		return nil, reads.err()
	}
	// A bound of the content budget names what it refused; past it, the library's own bound
	// (a stream read whatever its label) refuses the file rather than the pages it broke.
	if lerr := file.rd.InflateError(); lerr != nil && !errors.Is(err, ErrTooLarge) {
		return nil, overLimit(lerr.Error())
	}
	return doc, err
}

// openReader opens the file with ledongthuc/pdf, falling back to pdfcpu to
// decrypt or rebuild it in memory when the direct read fails; what the library
// reads counts against reads.
func openReader(r io.ReaderAt, size int64, password string, repairable error, inflate int64, reads *readBudget) (*opened, error) {
	limits := libraryLimits(inflate)
	rd, err := newReader(reads.on(r), size, password, limits)
	if errors.Is(err, pdf.ErrInflateLimit) {
		return nil, overLimit(err.Error()) // refused, not damaged: nothing to repair
	}
	if err == nil {
		pages, terr := readable(rd)
		if lerr := rd.InflateError(); lerr != nil {
			return nil, overLimit(lerr.Error())
		}
		if len(pages) > 0 {
			return &opened{rd: rd, pages: pages}, nil
		}
		if terr != nil {
			// The file parsed, its page tree loops: nothing to repair.
			return nil, corrupt(terr.Error())
		}
	}
	direct := "unreadable page tree"
	if err != nil {
		direct = err.Error()
	}
	if errors.Is(err, pdf.ErrInvalidPassword) && password == "" {
		return nil, encrypted(false)
	}
	if repairable != nil {
		return nil, overLimit(fmt.Sprintf("%s; %v", clip120(direct), repairable))
	}
	// pdfcpu decodes streams in memory, images too: they are checked now.
	if _, err := checkInflation(r, size, inflate, true); err != nil {
		return nil, err
	}
	data := make([]byte, size)
	if n, rerr := r.ReadAt(data, 0); rerr != nil && !errors.Is(rerr, io.EOF) {
		return nil, fmt.Errorf("read paper: %w", rerr)
	} else {
		data = data[:n]
	}
	if err := checkClaims(data); err != nil {
		return nil, err
	}
	fixed, ferr := rewrite(data, password)
	if ferr != nil {
		switch {
		case errors.Is(ferr, ErrWrongPassword):
			return nil, encrypted(password != "")
		case errors.Is(err, pdf.ErrInvalidPassword):
			return nil, encrypted(true)
		}
		return nil, corrupt(shortReason(direct, ferr.Error()))
	}
	rd, err = newReader(reads.on(bytes.NewReader(fixed)), int64(len(fixed)), "", limits)
	if errors.Is(err, pdf.ErrInflateLimit) {
		return nil, overLimit(err.Error())
	}
	if err != nil {
		return nil, corrupt(shortReason(direct, err.Error()))
	}
	pages, terr := readable(rd)
	if lerr := rd.InflateError(); lerr != nil {
		return nil, overLimit(lerr.Error())
	}
	if len(pages) == 0 {
		reason := "unreadable after repair"
		if terr != nil {
			reason = terr.Error()
		}
		return nil, corrupt(shortReason(direct, reason))
	}
	return &opened{rd: rd, pages: pages, repaired: true}, nil
}

// opened is a file the PDF library can read, with its pages (the tree is walked once).
type opened struct {
	rd       *pdf.Reader
	pages    []pageRef
	repaired bool // by the Repairer (pdfcpu)
}

func newReader(r io.ReaderAt, size int64, password string, limits pdf.Limits) (rd *pdf.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rd, err = nil, fmt.Errorf("malformed PDF: %v", p)
		}
	}()
	tried := false
	return pdf.NewReaderLimited(r, size, func() string {
		if tried {
			return ""
		}
		tried = true
		return password
	}, limits)
}

// readable returns the pages when the page tree can be walked; err says why a tree that
// could be read is refused (a loop), nil when it could not be read at all.
func readable(rd *pdf.Reader) (pages []pageRef, err error) {
	defer func() {
		if recover() != nil {
			pages, err = nil, nil
		}
	}()
	pages, err = pageTree(rd)
	if err != nil {
		return nil, err
	}
	return pages, nil
}

func shortReason(direct, repair string) string {
	return clip120(direct) + "; repair failed: " + clip120(repair)
}

func clip120(s string) string {
	s = strings.TrimPrefix(s, "pdfcpu: ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
