package library

import (
	"errors"

	"github.com/tofu-research/tofu/backend/paper"
)

// ImportError is what the UI shows of an import failure: the kind ("encrypted", "no_text",
// "corrupt" or ""), the message and the hint.
type ImportError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Explain classifies an import error; the HTTP transport adds kind and hint to the error
// answer with it. The message itself already ends with the hint in parentheses.
func Explain(err error) ImportError {
	var pe *paper.Error
	out := ImportError{Message: err.Error()}
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
