package app

import (
	"errors"

	"github.com/tofu-research/tofu/backend/store"
)

// Translate starts translating the paper into lang in the background (model: the selected
// one, else the main model of the settings). Progress goes to PaperTopic(id); the model calls
// are logged in the translation's session.
func (p *PaperService) Translate(paperID, lang, model string) error {
	if model == "" {
		set, _ := p.settings.config()
		model = set.Models.Main
	}
	return p.lib.Translate(paperID, lang, model)
}

// StopTranslate stops the paper's translation; what is done is kept.
func (p *PaperService) StopTranslate(paperID string) error {
	p.lib.StopTranslate(paperID)
	return nil
}

// Translation returns the saved translation of the paper into lang, or nil when there is
// none: the reader asks on every open, and a paper not yet translated is not an error.
func (p *PaperService) Translation(paperID, lang string) (*Translation, error) {
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
func (p *PaperService) TranslationMarkdown(paperID, lang string) (string, error) {
	return p.lib.TranslationMarkdown(paperID, lang)
}
