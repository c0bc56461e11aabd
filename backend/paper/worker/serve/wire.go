package serve

import (
	"errors"

	"github.com/tofu-research/tofu/backend/paper"
)

// The child's request is followed by the PDF's bytes; it answers with messages: progress as it
// goes, then a document or an error.

// Request is what the child reads before the PDF's bytes.
type Request struct {
	Size     int64           `json:"size"`
	Pages    paper.PageRange `json:"pages,omitempty"`
	Password string          `json:"password,omitempty"`
}

// Message is one answer of the child.
type Message struct {
	Progress []int           `json:"progress,omitempty"` // pages done, pages to do
	Doc      *paper.Document `json:"doc,omitempty"`
	Error    *WireError      `json:"error,omitempty"`
}

// WireError is an extraction's error: a paper.Error by its kind's name, any other by its text.
type WireError struct {
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

// ToWire is err on the wire.
func ToWire(err error) *WireError {
	var pe *paper.Error
	if errors.As(err, &pe) {
		for _, k := range kinds {
			if errors.Is(pe.Kind, k.err) {
				return &WireError{Kind: k.name, Reason: pe.Reason, Hint: pe.Hint}
			}
		}
	}
	return &WireError{Reason: err.Error()}
}

// Err is the error w carries, paper's sentinel found by errors.Is.
func (w *WireError) Err() error {
	for _, k := range kinds {
		if w.Kind == k.name {
			return paper.NewError(k.err, w.Reason, w.Hint)
		}
	}
	return errors.New(w.Reason)
}
