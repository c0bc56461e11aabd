package app

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

	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/store"
)

// TopicPapers carries the library ([]PaperInfo) after any change, and import progress.
const TopicPapers = library.TopicPapers

// PaperTopic is the topic of one paper's background work (translation progress).
func PaperTopic(id string) string { return library.PaperTopic(id) }

// The shapes the paper reader exchanges with the UI (see backend/paper/library).
type (
	PaperInfo           = library.Info
	PaperView           = library.View
	Translation         = library.Translation
	TranslationItem     = library.TranslationItem
	TranslationProgress = library.TranslationProgress
	PaperError          = library.ImportError
)

// PaperService is the paper library and reader bound to the UI: import, list, open, grounded
// Q&A, report and translation. The work is backend/paper/library's; Q&A and report answers
// are chat turns of the paper's sessions.
type PaperService struct {
	lib      *library.Library
	store    *store.Store // the PDF route reads the blob
	chat     *ChatService
	settings *SettingsService

	mu      sync.Mutex
	dialogs Dialogs     // the window's save dialog; nil under `tofu serve` (the browser downloads)
	opens   []PaperOpen // asked for by the desktop (App.OpenPaper), until the UI takes them

	imports library.ImportSlots // at most library.MaxImports imports run at once
}

func (p *PaperService) importPDF(ctx context.Context, name string, r io.ReaderAt, size int64, password string) (PaperInfo, error) {
	release, err := p.imports.Acquire(ctx)
	if err != nil {
		return PaperInfo{}, err
	}
	defer release()
	return p.lib.Import(ctx, name, r, size, password)
}

// Import extracts a PDF given as bytes (the browser's or window's file drop) and adds it to
// the library. The same file imported twice is the same paper.
func (p *PaperService) Import(name string, data []byte) (PaperInfo, error) {
	return p.ImportWithPassword(name, data, "")
}

// ImportWithPassword imports an encrypted PDF.
func (p *PaperService) ImportWithPassword(name string, data []byte, password string) (PaperInfo, error) {
	return p.importPDF(context.Background(), name, bytes.NewReader(data), int64(len(data)), password)
}

// ImportPath imports a PDF from the file system (the CLI, the window's native drop).
func (p *PaperService) ImportPath(path string) (PaperInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return PaperInfo{}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return PaperInfo{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return p.importPDF(context.Background(), filepath.Base(path), f, st.Size(), "")
}

// ImportArxiv downloads a paper from arXiv by id or URL and adds it to the library, with its
// title, authors and year from arXiv. It needs web access turned on in the settings.
func (p *PaperService) ImportArxiv(ref string) (PaperInfo, error) {
	cfg, err := p.settings.config()
	if err != nil {
		return PaperInfo{}, err
	}
	if !cfg.WebAccess {
		return PaperInfo{}, errors.New("importing from arXiv downloads from arxiv.org, and web access is off: turn it on in Settings, or download the PDF and drop it here")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return p.lib.ImportArxiv(ctx, ref)
}

// ImportURL downloads the PDF at a web address and adds it to the library. It needs web
// access turned on in the settings.
func (p *PaperService) ImportURL(url string) (PaperInfo, error) {
	cfg, err := p.settings.config()
	if err != nil {
		return PaperInfo{}, err
	}
	if !cfg.WebAccess {
		return PaperInfo{}, fmt.Errorf("importing %s downloads it, and web access is off: turn it on in Settings, or download the PDF and add the file", url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	release, err := p.imports.Acquire(ctx)
	if err != nil {
		return PaperInfo{}, err
	}
	defer release()
	return p.lib.ImportURL(ctx, url)
}

// ImportRef imports what the command line names: a PDF file, else an arXiv id or URL, else
// the PDF at a web address. dir is where a relative path is found (the terminal's directory).
func (p *PaperService) ImportRef(ref, dir string) (PaperInfo, error) {
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
	return PaperInfo{}, fmt.Errorf("%s is not a file, an arXiv id (2401.12345) or a web address (https://…)", ref)
}

// QASession is the paper's Q&A conversation (created on first use): a question sent to it
// with ChatService.Send is answered from the paper's passages.
func (p *PaperService) QASession(paperID string) (string, error) {
	return p.lib.Session(paperID, store.PurposeQA)
}

// List returns the library, most recently opened (or added) first.
func (p *PaperService) List() ([]PaperInfo, error) { return p.lib.List() }

// Open returns the paper's structure for the reader and marks it opened.
func (p *PaperService) Open(id string) (PaperView, error) { return p.lib.Open(id) }

// Delete removes the paper with its PDF, extracted text, Q&A, report and translations.
func (p *PaperService) Delete(id string) error { return p.lib.Delete(id) }

// Ask asks a question about the paper in its Q&A session and returns the session id; the
// answer streams on the session's topic like any chat reply, grounded by the library's
// augment hook (which logs a `retrieval` event).
func (p *PaperService) Ask(paperID, question, model string) (string, error) {
	sid, err := p.lib.Session(paperID, store.PurposeQA)
	if err != nil {
		return "", err
	}
	return sid, p.chat.Send(sid, question, model)
}

// Report generates the paper's structured report (streamed in its report session, whose id
// is returned); the last complete one is the paper's report.
func (p *PaperService) Report(paperID, model string) (string, error) {
	if p.settings.demoOn() {
		// It would write whatever its script says, and the paper would keep that as its report.
		return "", errors.New("the demo's scripted model cannot write a report: install a model (ollama pull qwen3:8b) or add a provider in Settings, then generate it")
	}
	sid, err := p.lib.Session(paperID, store.PurposeReport)
	if err != nil {
		return "", err
	}
	return sid, p.chat.Send(sid, library.ReportPrompt, model)
}

// ReportMarkdown returns the report as a Markdown document for export.
func (p *PaperService) ReportMarkdown(paperID string) (string, error) {
	return p.lib.ReportMarkdown(paperID)
}

// SaveExport writes a paper's report ("report") or its translation into lang ("translation")
// as Markdown to a file the user picks in the window's save dialog, and returns its path (""
// when cancelled). In a browser there is no dialog: the page downloads the Markdown instead.
func (p *PaperService) SaveExport(paperID, what, lang string) (string, error) {
	p.mu.Lock()
	d := p.dialogs
	p.mu.Unlock()
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

// ExplainError classifies an import error; the HTTP transport adds kind and hint to the error
// answer with it.
func ExplainError(err error) PaperError { return library.Explain(err) }
