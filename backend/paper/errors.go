package paper

import (
	"errors"
	"os/exec"
	"strings"

	"github.com/tofu-research/tofu/backend/wording"
)

// Sentinel errors the UI can switch on with errors.Is.
var (
	// ErrEncrypted: the file needs a password (none given, or the wrong one).
	ErrEncrypted = errors.New("the PDF is password-protected")
	// ErrNoText: the pages have no text layer, typically a scan.
	ErrNoText = errors.New("the PDF has no text layer (it looks scanned)")
	// ErrCorrupt: the file is not a PDF, is truncated or damaged beyond repair.
	ErrCorrupt = errors.New("the PDF is damaged and could not be repaired")
	// ErrTooLarge: the file goes past a resource bound of the extractor (a stream that
	// inflates too far, too much text, a page tree too large); errors.Is(err, ErrCorrupt)
	// holds too.
	ErrTooLarge = errors.New("the PDF is beyond the extractor's limits")
	// ErrNotPDF: the file is something else (a web page, a text file, an image); errors.Is(err,
	// ErrCorrupt) holds too, for callers that only know that one.
	ErrNotPDF = errors.New("the file is not a PDF")
)

// Error carries the kind (one of the sentinels), the reason and a hint for
// the user. errors.Is(err, ErrNoText) and friends work through Unwrap.
type Error struct {
	Kind   error
	Reason string // what went wrong, e.g. "missing %%EOF"
	Hint   string // what the user can do
	cause  error  // another sentinel errors.Is also finds (ErrCorrupt for ErrTooLarge), or nil
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.Error())
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Kind, e.cause}
	}
	return []error{e.Kind}
}

// NewError is an *Error of kind (one of the sentinels) as Extract returns it (ErrTooLarge is
// an ErrCorrupt too; with no hint, the kind's own if it has one), for a caller that carries an
// extraction's error across a process boundary or extracts by other means.
func NewError(kind error, reason, hint string) *Error {
	e := &Error{Kind: kind, Reason: reason, Hint: hint}
	if kind == ErrTooLarge || kind == ErrNotPDF {
		e.cause = ErrCorrupt
	}
	if hint == "" {
		switch kind {
		case ErrTooLarge:
			e.Hint = tooLargeHint
		case ErrCorrupt:
			e.Hint = corruptHint
		case ErrNotPDF:
			e.Hint = "give the paper's PDF file"
		}
	}
	return e
}

const corruptHint = "re-download the file or re-export it from its source"

func corrupt(reason string) error { return NewError(ErrCorrupt, reason, "") }

func encrypted(withPassword bool) error {
	if withPassword {
		return &Error{Kind: ErrEncrypted, Reason: "the password is wrong", Hint: "try another password"}
	}
	return &Error{Kind: ErrEncrypted, Hint: "open it again with its password"}
}

// noText builds ErrNoText with an OCR suggestion naming the tools found on PATH.
func noText(pages int) error {
	var found []string
	for _, tool := range []string{"ocrmypdf", "tesseract"} {
		if _, err := exec.LookPath(tool); err == nil {
			found = append(found, tool)
		}
	}
	hint := "run OCR on it first, e.g. with ocrmypdf or tesseract (neither is installed)"
	switch {
	case len(found) > 0 && found[0] == "ocrmypdf":
		hint = "run OCR on it first: ocrmypdf in.pdf out.pdf (ocrmypdf is installed)"
	case len(found) > 0:
		hint = "run OCR on it first with tesseract (installed), or install ocrmypdf"
	}
	reason := "no page has extractable text"
	if pages > 0 {
		reason = wording.Plural(pages, "page") + " without extractable text"
	}
	return &Error{Kind: ErrNoText, Reason: reason, Hint: hint}
}
