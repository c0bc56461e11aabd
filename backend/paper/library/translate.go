package library

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/paper"
	"github.com/tofu-research/tofu/backend/store"
)

// Translation is a paper's text beside its translation, paragraph by paragraph.
type Translation struct {
	Lang  string `json:"lang"`
	Model string `json:"model"`
	Done  bool   `json:"done"`
	// Session logs the translation's model calls (purpose "translation"): each batch as a
	// user message, the reply, usage, the router's report and any error.
	Session string            `json:"session,omitempty"`
	Items   []TranslationItem `json:"items"`
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

// TranslationProgress is sent on PaperTopic(id) while a translation runs.
type TranslationProgress struct {
	Kind  string           `json:"kind"` // "translation"
	Lang  string           `json:"lang"`
	Done  int              `json:"done"`  // paragraphs translated or skipped so far
	Total int              `json:"total"` // paragraphs in the paper
	State TranslationState `json:"state"`
	Error string           `json:"error,omitempty"`
}

// TranslationState is where a translation stands (TranslationProgress.State).
type TranslationState string

const (
	TranslationRunning TranslationState = "running"
	TranslationDone    TranslationState = "done"
	TranslationStopped TranslationState = "stopped" // by the user or the app closing; resumable
	TranslationError   TranslationState = "error"   // Error says why; resumable
)

// job is a running translation.
type job struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// Translate starts translating the paper into lang with model in the background, paragraph by
// paragraph (formulas, code and references are kept as they are). Progress goes to
// PaperTopic(id); the translation is saved after every batch, so a stopped one resumes where
// it was.
func (l *Library) Translate(paperID, lang, model string) error {
	lang = strings.TrimSpace(lang)
	if lang == "" || strings.ContainsAny(lang, "/\n") {
		return errors.New("name the language to translate into, e.g. French")
	}
	if model == "" {
		return errors.New("no model is selected: pick one in the model picker")
	}
	info, err := l.Info(paperID)
	if err != nil {
		return err
	}
	tr, err := l.Translation(paperID, lang)
	if err != nil || len(tr.Items) == 0 {
		doc, err := l.document(paperID)
		if err != nil {
			return err
		}
		tr = Translation{Lang: lang, Items: translationItems(doc)}
	}
	tr.Model = model
	ctx, cancel := context.WithCancelCause(context.Background())
	j := &job{cancel: cancel, done: make(chan struct{})}
	l.mu.Lock()
	if l.jobs[paperID] != nil {
		l.mu.Unlock()
		cancel(nil)
		return errors.New("a translation of this paper is already running: stop it first")
	}
	l.jobs[paperID] = j
	l.wg.Add(1)
	l.mu.Unlock()
	release := func() {
		l.mu.Lock()
		delete(l.jobs, paperID)
		l.mu.Unlock()
		cancel(nil)
		close(j.done)
		l.wg.Done()
	}
	if _, err := l.store.Session(tr.Session); tr.Session == "" || err != nil {
		if tr.Session, err = l.newSession(paperID, store.PurposeTranslation, "Translation ("+lang+"): "+info.Title); err != nil {
			release()
			return err
		}
	}
	// Saved before the first call, so that deleting the paper finds the session.
	if err := l.saveTranslation(paperID, &tr); err != nil {
		release()
		return err
	}
	if !contains(info.Translations, lang) {
		if _, err := l.update(paperID, func(i *Info) { i.Translations = append(i.Translations, lang) }); err != nil {
			release()
			return err
		}
	}
	go func() {
		defer release()
		l.runTranslation(ctx, paperID, &tr)
	}()
	return nil
}

// StopTranslate stops the paper's translation and waits until it has saved what is done.
func (l *Library) StopTranslate(paperID string) {
	l.mu.Lock()
	j := l.jobs[paperID]
	l.mu.Unlock()
	if j != nil {
		j.cancel(store.ErrStoppedByUser)
		<-j.done
	}
}

// Translation returns the saved translation of the paper into lang.
func (l *Library) Translation(paperID, lang string) (Translation, error) {
	var tr Translation
	b, err := l.store.BlobBytes(translationKey(paperID, lang))
	if err != nil {
		return tr, fmt.Errorf("translation of paper %s into %s: %w", paperID, lang, err)
	}
	return tr, json.Unmarshal(b, &tr)
}

// TranslationMarkdown returns the translation as Markdown for export.
func (l *Library) TranslationMarkdown(paperID, lang string) (string, error) {
	info, err := l.Info(paperID)
	if err != nil {
		return "", err
	}
	tr, err := l.Translation(paperID, lang)
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

func (l *Library) saveTranslation(id string, tr *Translation) error {
	b, err := json.Marshal(tr)
	if err != nil {
		return err
	}
	if _, err := l.store.PutBlob(translationKey(id, tr.Lang), bytes.NewReader(b)); err != nil {
		return fmt.Errorf("save the translation of paper %s: %w", id, err)
	}
	return nil
}

func (l *Library) runTranslation(ctx context.Context, id string, tr *Translation) {
	progress := func(state TranslationState, msg string) {
		done := 0
		for _, it := range tr.Items {
			if it.Skipped || it.Text != "" {
				done++
			}
		}
		l.opts.Emit.Emit(PaperTopic(id), TranslationProgress{Kind: "translation", Lang: tr.Lang, Done: done, Total: len(tr.Items), State: state, Error: msg})
	}
	progress(TranslationRunning, "")
	for {
		batch := nextBatch(tr.Items)
		if len(batch) == 0 {
			break
		}
		texts, err := l.translateBatch(ctx, tr, batch)
		if err == nil && len(texts) != len(batch) && len(batch) > 1 {
			// The model merged or dropped markers: one paragraph at a time instead.
			texts = nil
			for _, i := range batch {
				one, e := l.translateBatch(ctx, tr, []int{i})
				if e != nil {
					err = e
					break
				}
				texts = append(texts, one...)
			}
		}
		for k, i := range batch {
			if k < len(texts) {
				tr.Items[i].Text = texts[k]
			}
		}
		if serr := l.saveTranslation(id, tr); serr != nil && err == nil {
			err = serr
		}
		switch {
		case err != nil && ctx.Err() != nil:
			progress(TranslationStopped, "")
			return
		case err != nil:
			progress(TranslationError, err.Error())
			return
		}
		progress(TranslationRunning, "")
	}
	tr.Done = true
	if err := l.saveTranslation(id, tr); err != nil {
		progress(TranslationError, err.Error())
		return
	}
	progress(TranslationDone, "")
}

// translateBatch translates the items at indexes batch in one model call, logged in the
// translation's session like a chat turn (oneshot: the batch as the user's message, then the
// reply, usage, the router's report, and the error if it failed). It returns the texts in
// order; a reply whose markers do not match returns fewer texts.
func (l *Library) translateBatch(ctx context.Context, tr *Translation, batch []int) ([]string, error) {
	if l.opts.Call == nil {
		return nil, errors.New("translation needs a model call, and none is configured here")
	}
	reply, err := l.opts.Call(ctx, oneshot.Call{Session: tr.Session, Model: tr.Model,
		System: strings.ReplaceAll(assets.Prompt("paper_translate"), "{{lang}}", tr.Lang),
		Text:   numbered(tr.Items, batch),
		// Each batch is a request of its own: the batches before it are not sent again.
		Alone: true})
	if err != nil {
		return nil, err
	}
	return splitMarked(reply.Text, len(batch)), nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
