package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/paper"
)

// TranslationProgress is sent on PaperTopic(id) while a translation runs.
type TranslationProgress struct {
	Kind  string `json:"kind"` // "translation"
	Lang  string `json:"lang"`
	Done  int    `json:"done"`  // paragraphs translated or skipped so far
	Total int    `json:"total"` // paragraphs in the paper
	State string `json:"state"` // running, done, stopped, error
	Error string `json:"error,omitempty"`
}

// Translate starts translating the paper into lang in the background, paragraph by paragraph
// (formulas, code and references are kept as they are). Progress goes to PaperTopic(id); the
// translation is saved after every batch, so a stopped one resumes where it was.
func (p *PaperService) Translate(paperID, lang, model string) error {
	lang = strings.TrimSpace(lang)
	if lang == "" || strings.ContainsAny(lang, "/\n") {
		return errors.New("name the language to translate into, e.g. French")
	}
	info, err := p.info(paperID)
	if err != nil {
		return err
	}
	if model == "" {
		set, _ := p.chat.settings.config()
		model = set.Models.Main
	}
	if model == "" {
		return errors.New("no model is selected: pick one in the model picker")
	}
	tr, err := p.Translation(paperID, lang)
	if err != nil || len(tr.Items) == 0 {
		doc, err := p.document(paperID)
		if err != nil {
			return err
		}
		tr = Translation{Lang: lang, Items: translationItems(doc)}
	}
	tr.Model = model
	ctx, cancel := context.WithCancel(context.Background())
	p.mu.Lock()
	if p.jobs[paperID] != nil {
		p.mu.Unlock()
		cancel()
		return errors.New("a translation of this paper is already running: stop it first")
	}
	p.jobs[paperID] = cancel
	p.wg.Add(1)
	p.mu.Unlock()
	if !contains(info.Translations, lang) {
		p.update(paperID, func(i *PaperInfo) { i.Translations = append(i.Translations, lang) })
	}
	go func() {
		defer p.wg.Done()
		defer func() {
			p.mu.Lock()
			delete(p.jobs, paperID)
			p.mu.Unlock()
			cancel()
		}()
		p.runTranslation(ctx, paperID, &tr)
	}()
	return nil
}

// StopTranslate stops the paper's translation; what is done is kept.
func (p *PaperService) StopTranslate(paperID string) error {
	p.stopJob(paperID, false)
	return nil
}

// Translation returns the saved translation of the paper into lang.
func (p *PaperService) Translation(paperID, lang string) (Translation, error) {
	var tr Translation
	b, err := p.store.BlobBytes(translationKey(paperID, lang))
	if err != nil {
		return tr, err
	}
	return tr, json.Unmarshal(b, &tr)
}

// TranslationMarkdown returns the translation as Markdown for export.
func (p *PaperService) TranslationMarkdown(paperID, lang string) (string, error) {
	info, err := p.info(paperID)
	if err != nil {
		return "", err
	}
	tr, err := p.Translation(paperID, lang)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(header(info, "translation into "+lang))
	page := 0
	for _, it := range tr.Items {
		if it.Page != page {
			page = it.Page
			fmt.Fprintf(&b, "<!-- page %d -->\n\n", page)
		}
		text := it.Text
		if it.Skipped || text == "" {
			text = it.Source
		}
		if it.Kind == string(paper.KindHeading) || it.Kind == string(paper.KindTitle) {
			text = "## " + text
		}
		b.WriteString(text + "\n\n")
	}
	return b.String(), nil
}

func (p *PaperService) document(id string) (*paper.Document, error) {
	b, err := p.store.BlobBytes(docKey(id))
	if err != nil {
		return nil, err
	}
	var doc paper.Document
	return &doc, json.Unmarshal(b, &doc)
}

func (p *PaperService) saveTranslation(id string, tr *Translation) error {
	b, _ := json.Marshal(tr)
	_, err := p.store.PutBlob(translationKey(id, tr.Lang), bytes.NewReader(b))
	return err
}

func (p *PaperService) runTranslation(ctx context.Context, id string, tr *Translation) {
	provider, err := p.chat.providers.get()
	if err != nil {
		p.emit.Emit(PaperTopic(id), TranslationProgress{Kind: "translation", Lang: tr.Lang, Total: len(tr.Items), State: "error", Error: err.Error()})
		return
	}
	progress := func(state, msg string) {
		done := 0
		for _, it := range tr.Items {
			if it.Skipped || it.Text != "" {
				done++
			}
		}
		p.emit.Emit(PaperTopic(id), TranslationProgress{Kind: "translation", Lang: tr.Lang, Done: done, Total: len(tr.Items), State: state, Error: msg})
	}
	progress("running", "")
	for {
		batch := nextBatch(tr.Items)
		if len(batch) == 0 {
			break
		}
		texts, err := p.translateBatch(ctx, provider, tr, batch)
		if err == nil && len(texts) != len(batch) && len(batch) > 1 {
			// The model merged or dropped markers: one paragraph at a time instead.
			texts = nil
			for _, i := range batch {
				one, e := p.translateBatch(ctx, provider, tr, []int{i})
				if e != nil {
					err = e
					break
				}
				texts = append(texts, one...)
			}
		}
		if err != nil {
			p.saveTranslation(id, tr)
			if ctx.Err() != nil {
				progress("stopped", "")
			} else {
				progress("error", asLLMError(err, provider.Name()).Error())
			}
			return
		}
		for k, i := range batch {
			if k < len(texts) {
				tr.Items[i].Text = texts[k]
			}
		}
		if err := p.saveTranslation(id, tr); err != nil {
			progress("error", err.Error())
			return
		}
		progress("running", "")
	}
	tr.Done = true
	p.saveTranslation(id, tr)
	progress("done", "")
}

var markerRE = regexp.MustCompile(`⟦(\d+)⟧`)

// translateBatch translates the items at indexes batch in one call and returns their texts
// in order; a reply whose markers do not match returns fewer texts.
func (p *PaperService) translateBatch(ctx context.Context, provider llm.Provider, tr *Translation, batch []int) ([]string, error) {
	var b strings.Builder
	for k, i := range batch {
		fmt.Fprintf(&b, "⟦%d⟧ %s\n\n", k+1, tr.Items[i].Source)
	}
	req := llm.Request{Model: tr.Model, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: strings.ReplaceAll(assets.Prompt("paper_translate"), "{{lang}}", tr.Lang)},
		{Role: llm.RoleUser, Content: strings.TrimSpace(b.String())},
	}}
	var reply strings.Builder
	for ev, err := range provider.Stream(ctx, req) {
		if err != nil {
			return nil, err
		}
		if ev.Kind == llm.EventText {
			reply.WriteString(ev.Text)
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	text := strings.TrimSpace(reply.String())
	locs := markerRE.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 && len(batch) == 1 {
		return []string{text}, nil
	}
	var out []string
	for k, loc := range locs {
		n, _ := strconv.Atoi(text[loc[2]:loc[3]])
		if n != k+1 {
			return out, nil
		}
		end := len(text)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		out = append(out, strings.TrimSpace(text[loc[1]:end]))
	}
	return out, nil
}

// nextBatch picks the next untranslated paragraphs, up to translateBatch words.
func nextBatch(items []TranslationItem) []int {
	var out []int
	words := 0
	for i, it := range items {
		if it.Skipped || it.Text != "" {
			if len(out) > 0 {
				break // keep batches contiguous: context helps the translation
			}
			continue
		}
		n := len(strings.Fields(it.Source))
		if len(out) > 0 && words+n > translateBatch {
			break
		}
		out = append(out, i)
		words += n
	}
	return out
}

// translationItems lists the paper's blocks in reading order, marking what is not to be
// translated: references, and blocks that are mostly formula or code.
func translationItems(doc *paper.Document) []TranslationItem {
	var out []TranslationItem
	for _, pg := range doc.Pages {
		for _, b := range pg.Blocks {
			text := strings.TrimSpace(b.Text)
			if text == "" {
				continue
			}
			out = append(out, TranslationItem{
				Page: pg.Number, Kind: string(b.Kind), Source: text,
				Skipped: b.Kind == paper.KindReference || !isProse(text),
			})
		}
	}
	return out
}

// isProse says whether a block is language rather than a formula, code or a bare number: at
// least half of its characters are letters and it has a word of three letters or more.
func isProse(s string) bool {
	letters, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r):
		default:
			other++
		}
	}
	if letters == 0 || letters < other {
		return false
	}
	if strings.Count(s, ";")+strings.Count(s, "{")+strings.Count(s, "}") > len(strings.Fields(s))/2 {
		return false // code
	}
	for _, w := range strings.Fields(s) {
		if n := len([]rune(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))); n >= 3 {
			return true
		}
	}
	return strings.IndexFunc(s, func(r rune) bool { return r > 0x2E80 }) >= 0 // CJK
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
