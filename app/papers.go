package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/store"
)

// TopicPapers carries the library ([]PaperInfo) after any change, and import progress
// ({"kind": "progress", "name", "done", "total"}).
const TopicPapers = "papers"

// PaperTopic is the topic of one paper's background work (translation progress).
func PaperTopic(id string) string { return "paper:" + id }

// How much of the paper goes into a request.
const (
	qaChunks          = 5     // passages per question
	reportBudgetWords = 12000 // ~16k tokens: fits the default 32k context with room for the reply
	translateBatch    = 600   // words per translation call
)

// PaperInfo is one paper of the library.
type PaperInfo struct {
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

// PaperView is what the reader needs to show a paper: no re-extraction, the PDF itself is
// fetched from PDFURL.
type PaperView struct {
	Info     PaperInfo       `json:"info"`
	PDFURL   string          `json:"pdf_url"`
	Sections []paper.Section `json:"sections"`
	Chunks   []paper.Chunk   `json:"chunks"`
	Report   string          `json:"report,omitempty"` // text of the last complete report
}

// Translation is a paper's text beside its translation, paragraph by paragraph.
type Translation struct {
	Lang  string            `json:"lang"`
	Model string            `json:"model"`
	Done  bool              `json:"done"`
	Items []TranslationItem `json:"items"`
}

// TranslationItem is one paragraph. Skipped ones (formulas, code, references) are kept as
// they are.
type TranslationItem struct {
	Page    int    `json:"page"`
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Text    string `json:"text,omitempty"`
	Skipped bool   `json:"skipped,omitempty"`
}

// PaperService is the paper library and reader: import, list, open, grounded Q&A, report and
// translation.
type PaperService struct {
	store    *store.Store
	chat     *ChatService
	sessions *SessionService
	emit     Emitter

	mu      sync.Mutex
	indexes map[string]*paperIndex // built on first question, dropped on delete
	windows map[string]int         // context window per model, asked once
	jobs    map[string]context.CancelFunc
	wg      sync.WaitGroup

	arxiv   paper.Arxiv // arxiv.org unless a test points it elsewhere
	dialogs Dialogs     // the window's save dialog; nil under `tofu serve` (the browser downloads)
}

type paperIndex struct {
	title  string
	chunks []paper.Chunk
	index  *paper.Index
}

type paperStruct struct {
	Sections []paper.Section `json:"sections"`
	Chunks   []paper.Chunk   `json:"chunks"`
}

func recordKey(id string) string { return "paper/" + id }
func pdfKey(id string) string    { return "paper/" + id + "/pdf" }
func docKey(id string) string    { return "paper/" + id + "/doc" }
func structKey(id string) string { return "paper/" + id + "/struct" }
func translationKey(id, lang string) string {
	return "paper/" + id + "/translation/" + lang
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
		return PaperInfo{}, err
	}
	return p.importPDF(context.Background(), filepath.Base(path), f, st.Size(), "")
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
	info, err := p.info(paperID)
	if err != nil {
		return "", err
	}
	var md, suffix string
	switch what {
	case "report":
		md, err = p.ReportMarkdown(paperID)
		suffix = "report"
	case "translation":
		md, err = p.TranslationMarkdown(paperID, lang)
		suffix = strings.ToLower(lang)
	default:
		return "", fmt.Errorf("export %q: want report or translation", what)
	}
	if err != nil {
		return "", err
	}
	path, err := d.ChooseSaveFile("Export "+suffix, exportFileName(info.Title, suffix))
	if err != nil || path == "" {
		return "", err
	}
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// exportFileName is "<title, shortened>-<suffix>.md" with only safe characters.
func exportFileName(title, suffix string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 60 {
			break
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "paper"
	}
	return name + "-" + suffix + ".md"
}

// ImportArxiv downloads a paper from arXiv by id or URL and adds it to the library, with its
// title, authors and year from arXiv. It needs web access turned on in the settings.
func (p *PaperService) ImportArxiv(ref string) (PaperInfo, error) {
	id, err := paper.ParseArxivID(ref)
	if err != nil {
		return PaperInfo{}, err
	}
	cfg, err := p.chat.settings.config()
	if err != nil {
		return PaperInfo{}, err
	}
	if !cfg.WebAccess {
		return PaperInfo{}, errors.New("importing from arXiv downloads from arxiv.org, and web access is off: turn it on in Settings, or download the PDF and drop it here")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pdf, meta, err := p.arxiv.Fetch(ctx, id)
	if err != nil {
		return PaperInfo{}, err
	}
	info, err := p.importPDF(ctx, "arXiv-"+strings.ReplaceAll(id, "/", "_")+".pdf", bytes.NewReader(pdf), int64(len(pdf)), "")
	if err != nil || meta.Title == "" {
		return info, err
	}
	// arXiv's own metadata beats what the first page suggests.
	return p.update(info.ID, func(i *PaperInfo) {
		i.Title, i.Authors = meta.Title, meta.Authors
		if meta.Year > 0 {
			i.Year = meta.Year
		}
	})
}

func (p *PaperService) importPDF(ctx context.Context, name string, r io.ReaderAt, size int64, password string) (PaperInfo, error) {
	if size == 0 {
		return PaperInfo{}, &paper.Error{Kind: paper.ErrCorrupt, Reason: name + " is empty", Hint: "choose another file"}
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size)); err != nil {
		return PaperInfo{}, fmt.Errorf("read %s: %w", name, err)
	}
	id := hex.EncodeToString(h.Sum(nil))[:16]
	if info, err := p.info(id); err == nil {
		return info, nil // already in the library
	}
	doc, err := paper.Extract(ctx, r, size, paper.Options{Password: password, Progress: func(done, total int) {
		p.emit.Emit(TopicPapers, map[string]any{"kind": "progress", "name": name, "done": done, "total": total})
	}})
	if err != nil {
		return PaperInfo{}, fmt.Errorf("%s: %w", name, err)
	}
	chunks := doc.Chunks()
	words := 0
	for _, c := range chunks {
		words += c.Words
	}
	title := strings.TrimSpace(doc.Meta.Title)
	if title == "" {
		title = strings.TrimSuffix(name, filepath.Ext(name))
	}
	info := PaperInfo{
		ID: id, Name: name, Title: title, Authors: doc.Meta.Authors, Year: doc.Meta.Year,
		Pages: len(doc.Pages), Size: size, Words: words, Chunks: len(chunks),
		Repaired: doc.Meta.Repaired, Added: time.Now().UTC(),
	}
	// Blobs first, the record last: a paper is listed only once everything it needs is stored.
	fail := func(err error) (PaperInfo, error) {
		for _, k := range []string{pdfKey(id), docKey(id), structKey(id)} {
			p.store.DeleteBlob(k)
		}
		return PaperInfo{}, fmt.Errorf("save %s: %w", name, err)
	}
	if _, err := p.store.PutBlob(pdfKey(id), io.NewSectionReader(r, 0, size)); err != nil {
		return fail(err)
	}
	docJSON, _ := json.Marshal(doc)
	if _, err := p.store.PutBlob(docKey(id), bytes.NewReader(docJSON)); err != nil {
		return fail(err)
	}
	structJSON, _ := json.Marshal(paperStruct{Sections: doc.Sections, Chunks: chunks})
	if _, err := p.store.PutBlob(structKey(id), bytes.NewReader(structJSON)); err != nil {
		return fail(err)
	}
	if err := p.store.PutJSON(recordKey(id), info); err != nil {
		return fail(err)
	}
	p.announce()
	return info, nil
}

func (p *PaperService) info(id string) (PaperInfo, error) {
	var info PaperInfo
	ok, err := p.store.GetJSON(recordKey(id), &info)
	if err != nil {
		return PaperInfo{}, err
	}
	if !ok {
		return PaperInfo{}, fmt.Errorf("paper %s: %w", id, store.ErrNotFound)
	}
	return info, nil
}

func (p *PaperService) update(id string, fn func(*PaperInfo)) (PaperInfo, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	info, err := p.info(id)
	if err != nil {
		return PaperInfo{}, err
	}
	fn(&info)
	return info, p.store.PutJSON(recordKey(id), info)
}

// List returns the library, most recently opened (or added) first.
func (p *PaperService) List() ([]PaperInfo, error) {
	out := []PaperInfo{}
	err := p.store.ListJSON("paper/", func(name string, raw json.RawMessage) error {
		if strings.Count(name, "/") != 1 {
			return nil
		}
		var info PaperInfo
		if json.Unmarshal(raw, &info) == nil {
			out = append(out, info)
		}
		return nil
	})
	last := func(i PaperInfo) time.Time {
		if i.Opened.After(i.Added) {
			return i.Opened
		}
		return i.Added
	}
	sort.SliceStable(out, func(i, j int) bool { return last(out[i]).After(last(out[j])) })
	return out, err
}

func (p *PaperService) announce() {
	if list, err := p.List(); err == nil {
		p.emit.Emit(TopicPapers, list)
	}
}

// Open returns the paper's structure for the reader and marks it opened.
func (p *PaperService) Open(id string) (PaperView, error) {
	info, err := p.update(id, func(i *PaperInfo) { i.Opened = time.Now().UTC() })
	if err != nil {
		return PaperView{}, err
	}
	ps, err := p.structure(id)
	if err != nil {
		return PaperView{}, err
	}
	view := PaperView{Info: info, PDFURL: "/api/paper/" + id + ".pdf", Sections: ps.Sections, Chunks: ps.Chunks}
	view.Report, _ = p.report(info)
	p.announce()
	return view, nil
}

func (p *PaperService) structure(id string) (paperStruct, error) {
	var ps paperStruct
	b, err := p.store.BlobBytes(structKey(id))
	if err != nil {
		return ps, err
	}
	return ps, json.Unmarshal(b, &ps)
}

// Delete removes the paper with its PDF, extracted text, Q&A, report and translations.
func (p *PaperService) Delete(id string) error {
	info, err := p.info(id)
	if err != nil {
		return err
	}
	p.stopJob(id, true)
	for _, s := range []string{info.QA, info.Report} {
		if s != "" {
			if err := p.sessions.Delete(s); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
	}
	keys := []string{pdfKey(id), docKey(id), structKey(id)}
	for _, lang := range info.Translations {
		keys = append(keys, translationKey(id, lang))
	}
	for _, k := range keys {
		if err := p.store.DeleteBlob(k); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	if err := p.store.DeleteJSON(recordKey(id)); err != nil {
		return err
	}
	p.mu.Lock()
	delete(p.indexes, id)
	p.mu.Unlock()
	p.announce()
	return nil
}

// session returns the paper's session for purpose ("qa" or "report"), creating it.
func (p *PaperService) session(id, purpose string) (string, error) {
	info, err := p.info(id)
	if err != nil {
		return "", err
	}
	existing := info.QA
	if purpose == "report" {
		existing = info.Report
	}
	if existing != "" {
		if _, err := p.store.Session(existing); err == nil {
			return existing, nil
		}
	}
	label := map[string]string{"qa": "Q&A", "report": "Report"}[purpose]
	s, err := p.store.CreateSession(label + ": " + info.Title)
	if err != nil {
		return "", err
	}
	if _, err := p.store.UpdateSession(s.ID, func(i *store.SessionInfo) { i.Paper, i.Purpose = id, purpose }); err != nil {
		return "", err
	}
	_, err = p.update(id, func(i *PaperInfo) {
		if purpose == "report" {
			i.Report = s.ID
		} else {
			i.QA = s.ID
		}
	})
	return s.ID, err
}

// Ask asks a question about the paper in its Q&A session and returns the session id; the
// answer streams on the session's topic like any chat reply. The passages retrieved for the
// question go into the request and are logged as a `retrieval` event.
func (p *PaperService) Ask(paperID, question, model string) (string, error) {
	sid, err := p.session(paperID, "qa")
	if err != nil {
		return "", err
	}
	return sid, p.chat.Send(sid, question, model)
}

// Report generates the paper's structured report (streamed in its report session, whose id
// is returned); the last complete one is the paper's report.
func (p *PaperService) Report(paperID, model string) (string, error) {
	sid, err := p.session(paperID, "report")
	if err != nil {
		return "", err
	}
	return sid, p.chat.Send(sid, "Write the structured report of this paper.", model)
}

// report returns the text of the paper's last complete report.
func (p *PaperService) report(info PaperInfo) (string, error) {
	if info.Report == "" {
		return "", nil
	}
	evs, err := p.store.Events(info.Report)
	if err != nil {
		return "", err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		var a store.AssistantMessage
		if evs[i].Type == store.EventAssistant && evs[i].Decode(&a) == nil && !a.Interrupted && a.StopReason != "error" && a.Text != "" {
			return a.Text, nil
		}
	}
	return "", nil
}

// ReportMarkdown returns the report as a Markdown document for export.
func (p *PaperService) ReportMarkdown(paperID string) (string, error) {
	info, err := p.info(paperID)
	if err != nil {
		return "", err
	}
	text, err := p.report(info)
	if err != nil {
		return "", err
	}
	if text == "" {
		return "", errors.New("this paper has no report yet: generate one first")
	}
	return header(info, "Report") + text + "\n", nil
}

func header(info PaperInfo, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — %s\n\n", info.Title, what)
	if len(info.Authors) > 0 {
		b.WriteString(strings.Join(info.Authors, ", "))
		if info.Year > 0 {
			fmt.Fprintf(&b, " (%d)", info.Year)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

func (p *PaperService) index(id string) (*paperIndex, error) {
	p.mu.Lock()
	ix := p.indexes[id]
	p.mu.Unlock()
	if ix != nil {
		return ix, nil
	}
	info, err := p.info(id)
	if err != nil {
		return nil, err
	}
	ps, err := p.structure(id)
	if err != nil {
		return nil, err
	}
	ix = &paperIndex{title: info.Title, chunks: ps.Chunks, index: paper.NewIndex(ps.Chunks)}
	p.mu.Lock()
	p.indexes[id] = ix
	p.mu.Unlock()
	return ix, nil
}

// augment puts the paper into the request of a paper session's turn: the retrieved passages
// for a question, the whole text (within a budget) for a report. It is ChatService's hook and
// runs before each call, so every turn (and every retry) is grounded afresh.
func (p *PaperService) augment(sessionID, model string, msgs []llm.Message) ([]llm.Message, error) {
	info, err := p.store.Session(sessionID)
	if err != nil || info.Paper == "" || len(msgs) == 0 {
		return msgs, nil
	}
	ix, err := p.index(info.Paper)
	if err != nil {
		return nil, fmt.Errorf("the paper of this conversation: %w", err)
	}
	last := len(msgs) - 1
	question := msgs[last].Content
	// What fits: the model's window less the reply's reserve and the conversation so far.
	budget := p.budgetBytes(model)
	for _, m := range msgs[:last] {
		if info.Purpose != "report" || m.Role == llm.RoleSystem {
			budget -= len(m.Content) + 32
		}
	}
	cost := func(c paper.Chunk) int { return len(c.Text) + len(c.Section) + 64 }
	rec := store.Retrieval{Paper: info.Paper, Query: question}
	var b strings.Builder
	var chosen []paper.Chunk
	if info.Purpose == "report" {
		rec.Method = "full_text"
		chosen = fitReport(ix.chunks, budget, cost)
		b.WriteString(strings.ReplaceAll(assets.Prompt("paper_report"), "{{title}}", ix.title))
		// The report is made from the paper alone, not from earlier reports.
		msgs = append(systemOnly(msgs), llm.Message{Role: llm.RoleUser})
		last = len(msgs) - 1
	} else {
		rec.Method = "bm25"
		used := 0
		for _, h := range ix.index.Search(question, qaChunks) {
			if len(chosen) > 0 && used+cost(h.Chunk) > budget {
				break
			}
			used += cost(h.Chunk)
			chosen = append(chosen, h.Chunk)
			rec.Chunks = append(rec.Chunks, store.RetrievedChunk{ID: h.Chunk.ID, Pages: h.Chunk.Pages, Section: h.Chunk.Section, Score: round3(h.Score)})
		}
		if len(chosen) == 0 { // no term of the question is in the paper ("summarize this")
			rec.Method = "first_chunks"
			chosen = ix.chunks[:min(3, len(ix.chunks))]
		}
		b.WriteString(strings.ReplaceAll(assets.Prompt("paper_qa"), "{{title}}", ix.title))
	}
	if rec.Chunks == nil {
		for _, c := range chosen {
			rec.Chunks = append(rec.Chunks, store.RetrievedChunk{ID: c.ID, Pages: c.Pages, Section: c.Section})
		}
	}
	b.WriteString("\n\n")
	for _, c := range chosen {
		fmt.Fprintf(&b, "<passage id=%d pages=%q section=%q>\n%s\n</passage>\n\n", c.ID, pagesLabel(c.Pages), c.Section, c.Text)
		rec.Words += c.Words
	}
	if info.Purpose != "report" {
		b.WriteString("Question: " + question)
	}
	if _, err := p.store.Append(sessionID, store.EventRetrieval, rec); err != nil {
		return nil, err
	}
	out := append([]llm.Message(nil), msgs...)
	out[last] = llm.Message{Role: llm.RoleUser, Content: strings.TrimSpace(b.String())}
	return out, nil
}

// budgetBytes estimates how many bytes of paper text fit in a request to model: its context
// window (from the provider, 32k when unknown) less 2k tokens for the reply and 1k for the
// instructions, at 3 bytes per token (the estimate the Ollama provider checks requests with).
func (p *PaperService) budgetBytes(model string) int {
	p.mu.Lock()
	window, ok := p.windows[model]
	p.mu.Unlock()
	if !ok {
		window = 32768
		var models []llm.ModelInfo
		var err error
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if provider, perr := p.chat.providers.get(); perr == nil {
			models, err = provider.Models(ctx)
		} else {
			err = perr
		}
		cancel()
		for _, m := range models {
			if m.Name == model || strings.TrimSuffix(m.Name, ":latest") == model {
				if m.ContextWindow > 0 {
					window = m.ContextWindow
				} else if m.ContextLength > 0 {
					window = m.ContextLength
				}
			}
		}
		if err == nil {
			p.mu.Lock()
			p.windows[model] = window
			p.mu.Unlock()
		}
	}
	return max(2000, (window-2048-1024)*3)
}

// fitReport picks the chunks a report is written from: all of them when they fit; else the
// first chunk of every section (so results and conclusions are not cut off by a long method
// section), then the rest in reading order while they fit. The pick is in reading order.
func fitReport(chunks []paper.Chunk, budget int, cost func(paper.Chunk) int) []paper.Chunk {
	used, words := 0, 0
	picked := make([]bool, len(chunks))
	take := func(i int) {
		if c := chunks[i]; !picked[i] && used+cost(c) <= budget && words+c.Words <= reportBudgetWords {
			picked[i] = true
			used += cost(c)
			words += c.Words
		}
	}
	for i, c := range chunks {
		if i == 0 || c.Section != chunks[i-1].Section {
			take(i)
		}
	}
	for i := range chunks {
		take(i)
	}
	var out []paper.Chunk
	for i, c := range chunks {
		if picked[i] {
			out = append(out, c)
		}
	}
	return out
}

func systemOnly(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			out = append(out, m)
		}
	}
	return out
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

// pagesLabel writes pages as "p. 4" or "pp. 4-5".
func pagesLabel(pages []int) string {
	switch len(pages) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("p. %d", pages[0])
	}
	return fmt.Sprintf("pp. %d-%d", pages[0], pages[len(pages)-1])
}

// PaperError turns an import failure into what the UI shows: the kind ("encrypted",
// "no_text", "corrupt" or ""), the message and the hint.
type PaperError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// ExplainError classifies an import error; the HTTP transport adds kind and hint to the error
// answer with it. The message itself already ends with the hint in parentheses.
func ExplainError(err error) PaperError {
	var pe *paper.Error
	out := PaperError{Message: err.Error()}
	if errors.As(err, &pe) {
		out.Hint = pe.Hint
		switch {
		case errors.Is(err, paper.ErrEncrypted):
			out.Kind = "encrypted"
		case errors.Is(err, paper.ErrNoText):
			out.Kind = "no_text"
		case errors.Is(err, paper.ErrCorrupt):
			out.Kind = "corrupt"
		}
	}
	return out
}

func (p *PaperService) stopJob(id string, wait bool) {
	p.mu.Lock()
	cancel := p.jobs[id]
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	_ = wait
}

// shutdown stops background translations and waits for them to save what they have.
func (p *PaperService) shutdown() {
	p.mu.Lock()
	for _, c := range p.jobs {
		c()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
