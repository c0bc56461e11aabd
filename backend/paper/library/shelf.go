package library

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/store"
)

// Shelf is the library as the window shows it: import (a dropped file, a path, arXiv, a web
// address), list, open, delete, translate, export, and the papers the desktop asked to show.
// The window's PaperService (app) is Shelf bound to the user interface: every exported method
// is callable from the page, so the rest are functions.
type Shelf struct {
	lib     *Library
	config  func() (config.Config, error)
	dialogs func() SaveDialog
	imports ImportSlots // at most MaxImports imports run at once

	mu    sync.Mutex
	opens []Opened // asked for by the desktop (Queue), until the UI takes them
}

// SaveDialog is the window's save dialog: "" when the user cancels.
type SaveDialog interface {
	ChooseSaveFile(title, defaultName string) (string, error)
}

// ShelfOptions are what a Shelf works with.
type ShelfOptions struct {
	Library *Library
	// Config reads the settings (web access, the main model).
	Config func() (config.Config, error)
	// Dialogs is the window's save dialog, nil under `tofu serve` (the browser downloads).
	Dialogs func() SaveDialog
}

// NewShelf shows o.Library.
func NewShelf(o ShelfOptions) *Shelf {
	s := &Shelf{lib: o.Library, config: o.Config, dialogs: o.Dialogs}
	if s.dialogs == nil {
		s.dialogs = func() SaveDialog { return nil }
	}
	return s
}

// Slots are the shelf's import slots, which uploads share.
func Slots(s *Shelf) *ImportSlots { return &s.imports }

// Queue asks the UI to show o (TakeOpens): the request waits until the UI takes it.
func Queue(s *Shelf, o Opened) {
	s.mu.Lock()
	s.opens = append(s.opens, o)
	s.mu.Unlock()
}

func (p *Shelf) importPDF(ctx context.Context, name string, r io.ReaderAt, size int64, password string) (Info, error) {
	release, err := p.imports.Acquire(ctx)
	if err != nil {
		return Info{}, err
	}
	defer release()
	return p.lib.Import(ctx, name, r, size, password)
}

// Opened is a paper the desktop asked the window to show ("Open with Tofu" on a PDF in the
// file manager, or `tofu open FILE.pdf`): the paper imported, or why it could not be.
type Opened struct {
	ID    string `json:"id,omitempty"`
	Name  string `json:"name"`
	Error string `json:"error,omitempty"`
}

// Import extracts a PDF given as bytes (the browser's or window's file drop) and adds it to
// the library. The same file imported twice is the same paper.
func (p *Shelf) Import(name string, data []byte) (Info, error) {
	return p.ImportWithPassword(name, data, "")
}

// ImportWithPassword imports an encrypted PDF.
func (p *Shelf) ImportWithPassword(name string, data []byte, password string) (Info, error) {
	return p.importPDF(context.Background(), name, bytes.NewReader(data), int64(len(data)), password)
}

// ImportPath imports a PDF from the file system (the CLI, the window's native drop).
func (p *Shelf) ImportPath(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Info{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return p.importPDF(context.Background(), filepath.Base(path), f, st.Size(), "")
}

// ImportArxiv downloads a paper from arXiv by id or URL and adds it to the library, with its
// title, authors and year from arXiv. It needs web access turned on in the settings.
func (p *Shelf) ImportArxiv(ref string) (Info, error) {
	cfg, err := p.config()
	if err != nil {
		return Info{}, err
	}
	if !cfg.WebAccess {
		return Info{}, errors.New("importing from arXiv downloads from arxiv.org, and web access is off: turn it on in Settings, or download the PDF and drop it here")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return p.lib.ImportArxiv(ctx, ref)
}

// ImportURL downloads the PDF at a web address and adds it to the library. It needs web
// access turned on in the settings.
func (p *Shelf) ImportURL(url string) (Info, error) {
	cfg, err := p.config()
	if err != nil {
		return Info{}, err
	}
	if !cfg.WebAccess {
		return Info{}, fmt.Errorf("importing %s downloads it, and web access is off: turn it on in Settings, or download the PDF and add the file", url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	release, err := p.imports.Acquire(ctx)
	if err != nil {
		return Info{}, err
	}
	defer release()
	return p.lib.ImportURL(ctx, url)
}

// ImportRef imports what the command line names: a PDF file, else an arXiv id or URL, else
// the PDF at a web address. dir is where a relative path is found (the terminal's directory).
func (p *Shelf) ImportRef(ref, dir string) (Info, error) {
	path := ref
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return p.ImportPath(path)
	}
	if _, err := paper.ParseArxivID(ref); err == nil {
		return p.ImportArxiv(ref)
	}
	if strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://") {
		return p.ImportURL(ref)
	}
	return Info{}, fmt.Errorf("%s is not a file, an arXiv id (2401.12345) or a web address (https://…)", ref)
}

// QASession is the paper's Q&A conversation (created on first use): a question sent to it
// with ChatService.Send is answered from the paper's passages.
func (p *Shelf) QASession(paperID string) (string, error) {
	return p.lib.Session(paperID, store.PurposeQA)
}

// List returns the library, most recently opened (or added) first.
func (p *Shelf) List() ([]Info, error) { return p.lib.List() }

// Open returns the paper's structure for the reader and marks it opened.
func (p *Shelf) Open(id string) (View, error) { return p.lib.Open(id) }

// Delete removes the paper with its PDF, extracted text, Q&A, report and translations.
func (p *Shelf) Delete(id string) error { return p.lib.Delete(id) }

// ReportMarkdown returns the report as a Markdown document for export.
func (p *Shelf) ReportMarkdown(paperID string) (string, error) {
	return p.lib.ReportMarkdown(paperID)
}

// SaveExport writes a paper's report ("report") or its translation into lang ("translation")
// as Markdown to a file the user picks in the window's save dialog, and returns its path (""
// when cancelled). In a browser there is no dialog: the page downloads the Markdown instead.
func (p *Shelf) SaveExport(paperID, what, lang string) (string, error) {
	d := p.dialogs()
	if d == nil {
		return "", errors.New("there is no save dialog in the browser: the page downloads the file")
	}
	md, name, err := p.lib.Export(paperID, what, lang)
	if err != nil {
		return "", err
	}
	path, err := d.ChooseSaveFile("Export "+what, name)
	if err != nil || path == "" {
		return "", err
	}
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// Translate starts translating the paper into lang in the background (model: the selected
// one, else the main model of the settings). Progress goes to PaperTopic(id); the model calls
// are logged in the translation's session.
func (p *Shelf) Translate(paperID, lang, model string) error {
	if model == "" {
		set, _ := p.config()
		model = set.Models.Main
	}
	return p.lib.Translate(paperID, lang, model)
}

// StopTranslate stops the paper's translation; what is done is kept.
func (p *Shelf) StopTranslate(paperID string) error {
	p.lib.StopTranslate(paperID)
	return nil
}

// Translation returns the saved translation of the paper into lang, or nil when there is
// none: the reader asks on every open, and a paper not yet translated is not an error.
func (p *Shelf) Translation(paperID, lang string) (*Translation, error) {
	tr, err := p.lib.Translation(paperID, lang)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &tr, nil
}

// TranslationMarkdown returns the translation as Markdown for export.
func (p *Shelf) TranslationMarkdown(paperID, lang string) (string, error) {
	return p.lib.TranslationMarkdown(paperID, lang)
}

// TakeOpens returns the papers the desktop asked to show since the last call, oldest first,
// and forgets them.
func (p *Shelf) TakeOpens() []Opened {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.opens
	p.opens = nil
	return out
}
