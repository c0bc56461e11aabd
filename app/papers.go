package app

import (
	"errors"

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
// Q&A, report and translation. The work is backend/paper/library's (its Shelf's methods are
// this service's); Q&A and report answers are chat turns of the paper's sessions.
type PaperService struct {
	*library.Shelf
	lib      *library.Library
	chat     *ChatService
	settings *SettingsService
}

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

// ExplainError classifies an import error; the HTTP transport adds kind and hint to the error
// answer with it.
func ExplainError(err error) PaperError { return library.Explain(err) }
