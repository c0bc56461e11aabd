package worker

import (
	"errors"

	"github.com/tofu-research/tofu/backend/paper"
)

// The child's request is followed by the PDF's bytes; it answers with messages: progress as it
// goes, then a document or an error.

type request struct {
	Size     int64           `json:"size"`
	Pages    paper.PageRange `json:"pages,omitempty"`
	Password string          `json:"password,omitempty"`
}

type message struct {
	Progress []int           `json:"progress,omitempty"` // pages done, pages to do
	Doc      *paper.Document `json:"doc,omitempty"`
	Error    *wireError      `json:"error,omitempty"`
}

// wireError is an extraction's error: a paper.Error by its kind's name, any other by its text.
type wireError struct {
	Kind   string `json:"kind,omitempty"`
	Reason string `json:"reason"`
	Hint   string `json:"hint,omitempty"`
}

// kinds name paper's sentinels on the wire; ErrTooLarge and ErrNotPDF before ErrCorrupt, which
// they also are.
var kinds = []struct {
	name string
	err  error
}{
	{"too_large", paper.ErrTooLarge},
	{"not_pdf", paper.ErrNotPDF},
	{"encrypted", paper.ErrEncrypted},
	{"no_text", paper.ErrNoText},
	{"corrupt", paper.ErrCorrupt},
}

func toWire(err error) *wireError {
	var pe *paper.Error
	if errors.As(err, &pe) {
		for _, k := range kinds {
			if errors.Is(pe.Kind, k.err) {
				return &wireError{Kind: k.name, Reason: pe.Reason, Hint: pe.Hint}
			}
		}
	}
	return &wireError{Reason: err.Error()}
}

func (w *wireError) err() error {
	for _, k := range kinds {
		if w.Kind == k.name {
			return paper.NewError(k.err, w.Reason, w.Hint)
		}
	}
	return errors.New(w.Reason)
}
