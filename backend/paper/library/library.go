// Package library is the paper library and reader behind the window: papers imported once and
// stored in the event store, grounded Q&A and reports (the passages put into a paper
// session's requests), and translations, whose model calls are logged like any other.
package library

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/paper/arxiv"
	"github.com/tofu-research/tofu/backend/store"
)

// TopicPapers carries the library ([]Info) after any change, and import progress
// ({"kind": "progress", "name", "done", "total"}).
const TopicPapers = "papers"

// PaperTopic is the topic of one paper's background work (translation progress).
func PaperTopic(id string) string { return "paper:" + id }

// Emitter receives what the user interface hears of the library. It must not block.
type Emitter interface {
	Emit(topic string, data any)
}

// Options are the library's dependencies on the rest of the application.
type Options struct {
	// Provider is the model provider for the current settings (it may change between calls).
	Provider func() (llm.Provider, error)
	// Call makes a translation's model calls (agent.OneShot; nil: translation is refused).
	Call oneshot.Func
	// DeleteSession removes a session linked to a paper, stopping its turn first (nil:
	// the store's DeleteSession).
	DeleteSession func(id string) error
	Emit          Emitter
	// Arxiv is where ImportArxiv downloads from (zero: arxiv.org).
	Arxiv arxiv.Client
	// HTTP is what ImportURL downloads with (nil: a client with a two-minute timeout).
	HTTP *http.Client
}

// Library is the paper library of one store.
type Library struct {
	store *store.Store
	opts  Options

	mu      sync.Mutex
	indexes map[string]*paperIndex // built on the first question, dropped on delete
	windows map[string]int         // context window per model, asked once
	jobs    map[string]*job        // running translations, by paper
	wg      sync.WaitGroup
}

// New returns the library stored in st.
func New(st *store.Store, opts Options) *Library {
	if opts.DeleteSession == nil {
		opts.DeleteSession = st.DeleteSession
	}
	if opts.Emit == nil {
		opts.Emit = nopEmitter{}
	}
	return &Library{store: st, opts: opts, indexes: map[string]*paperIndex{}, windows: map[string]int{},
		jobs: map[string]*job{}}
}

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}

// Info is one paper of the library.
type Info struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"` // file name it was imported from
	Title        string    `json:"title"`
	Authors      []string  `json:"authors,omitempty"`
	Year         int       `json:"year,omitempty"`
	Pages        int       `json:"pages"`
	Size         int64     `json:"size"`
	Words        int       `json:"words"`
	Chunks       int       `json:"chunks"`
	Repaired     bool      `json:"repaired,omitempty"`
	Added        time.Time `json:"added"`
	Opened       time.Time `json:"opened,omitzero"`
	QA           string    `json:"qa,omitempty"`     // session id of its Q&A
	Report       string    `json:"report,omitempty"` // session id of its report
	Translations []string  `json:"translations,omitempty"`
}

// View is what the reader needs to show a paper: no re-extraction, the PDF itself is fetched
// from PDFURL.
type View struct {
	Info     Info            `json:"info"`
	PDFURL   string          `json:"pdf_url"`
	Sections []paper.Section `json:"sections"`
	Chunks   []paper.Chunk   `json:"chunks"`
	Report   string          `json:"report,omitempty"` // text of the last complete report
}

// structure is what the reader shows and retrieval searches, stored apart from the Document so
// that opening a paper does not read its whole text.
type structure struct {
	Sections     []paper.Section `json:"sections"`
	Chunks       []paper.Chunk   `json:"chunks"`
	ChunkVersion int             `json:"chunk_version,omitempty"` // paper.ChunkVersion of Chunks
}

func recordKey(id string) string { return "paper/" + id }

// PDFKey is the blob key of a paper's PDF (the HTTP routes serve it).
func PDFKey(id string) string    { return "paper/" + id + "/pdf" }
func docKey(id string) string    { return "paper/" + id + "/doc" }
func structKey(id string) string { return "paper/" + id + "/struct" }
func translationKey(id, lang string) string {
	return "paper/" + id + "/translation/" + lang
}

// Info returns the record of paper id (store.ErrNotFound when there is none).
func (l *Library) Info(id string) (Info, error) {
	var info Info
	ok, err := l.store.GetJSON(recordKey(id), &info)
	if err != nil {
		return Info{}, fmt.Errorf("paper %s: %w", id, err)
	}
	if !ok {
		return Info{}, fmt.Errorf("paper %s: %w", id, store.ErrNotFound)
	}
	return info, nil
}

func (l *Library) update(id string, fn func(*Info)) (Info, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	info, err := l.Info(id)
	if err != nil {
		return Info{}, err
	}
	fn(&info)
	if err := l.store.PutJSON(recordKey(id), info); err != nil {
		return Info{}, fmt.Errorf("save paper %s: %w", id, err)
	}
	return info, nil
}

// List returns the library, most recently opened (or added) first.
func (l *Library) List() ([]Info, error) {
	out := []Info{}
	err := l.store.ListJSON("paper/", func(name string, raw json.RawMessage) error {
		if strings.Count(name, "/") != 1 {
			return nil
		}
		var info Info
		if json.Unmarshal(raw, &info) == nil {
			out = append(out, info)
		}
		return nil
	})
	last := func(i Info) time.Time {
		if i.Opened.After(i.Added) {
			return i.Opened
		}
		return i.Added
	}
	sort.SliceStable(out, func(i, j int) bool { return last(out[i]).After(last(out[j])) })
	return out, err
}

// announce sends the library to the UI after a change.
func (l *Library) announce() {
	if list, err := l.List(); err == nil {
		l.opts.Emit.Emit(TopicPapers, list)
	}
}

// Open returns the paper's structure for the reader and marks it opened.
func (l *Library) Open(id string) (View, error) {
	info, err := l.update(id, func(i *Info) { i.Opened = time.Now().UTC() })
	if err != nil {
		return View{}, err
	}
	ps, err := l.structure(id)
	if err != nil {
		return View{}, err
	}
	view := View{Info: info, PDFURL: "/api/paper/" + id + ".pdf", Sections: ps.Sections, Chunks: ps.Chunks}
	view.Report, _ = l.reportText(info)
	l.announce()
	return view, nil
}

func (l *Library) structure(id string) (structure, error) {
	var ps structure
	b, err := l.store.BlobBytes(structKey(id))
	if err != nil {
		return ps, fmt.Errorf("read the structure of paper %s: %w", id, err)
	}
	if err := json.Unmarshal(b, &ps); err != nil {
		return ps, fmt.Errorf("read the structure of paper %s: %w", id, err)
	}
	if ps.ChunkVersion == paper.ChunkVersion {
		return ps, nil
	}
	// Chunks of an older cut are made again from the stored text, once.
	doc, err := l.document(id)
	if err != nil {
		return ps, err
	}
	ps.Chunks, ps.ChunkVersion = doc.Chunks(), paper.ChunkVersion
	if b, err := json.Marshal(ps); err == nil {
		if _, err := l.store.PutBlob(structKey(id), bytes.NewReader(b)); err != nil {
			return ps, fmt.Errorf("save the passages of paper %s: %w", id, err)
		}
	}
	return ps, nil
}

func (l *Library) document(id string) (*paper.Document, error) {
	b, err := l.store.BlobBytes(docKey(id))
	if err != nil {
		return nil, fmt.Errorf("read the text of paper %s: %w", id, err)
	}
	var doc paper.Document
	return &doc, json.Unmarshal(b, &doc)
}

// Delete removes the paper with its PDF, extracted text, Q&A, report and translations (with
// the sessions that logged them).
func (l *Library) Delete(id string) error {
	info, err := l.Info(id)
	if err != nil {
		return err
	}
	l.StopTranslate(id)
	sessions := []string{info.QA, info.Report}
	for _, lang := range info.Translations {
		if tr, err := l.Translation(id, lang); err == nil {
			sessions = append(sessions, tr.Session)
		}
	}
	for _, s := range sessions {
		if s != "" {
			if err := l.opts.DeleteSession(s); err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("delete session %s of paper %s: %w", s, id, err)
			}
		}
	}
	keys := []string{PDFKey(id), docKey(id), structKey(id)}
	for _, lang := range info.Translations {
		keys = append(keys, translationKey(id, lang))
	}
	for _, k := range keys {
		if err := l.store.DeleteBlob(k); err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("delete %s: %w", k, err)
		}
	}
	if err := l.store.DeleteJSON(recordKey(id)); err != nil {
		return fmt.Errorf("delete paper %s: %w", id, err)
	}
	l.mu.Lock()
	delete(l.indexes, id)
	l.mu.Unlock()
	l.announce()
	return nil
}

// Shutdown stops background translations and waits until each has saved what it has.
func (l *Library) Shutdown() {
	l.mu.Lock()
	for _, j := range l.jobs {
		j.cancel(store.ErrShutdown)
	}
	l.mu.Unlock()
	l.wg.Wait()
}
