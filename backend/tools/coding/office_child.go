package coding

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tofu-research/tofu/backend/child"
)

// Office files are read in a child process (backend/child), as PDFs are: a workspace's
// .xlsx, .docx or .pptx is input Tofu did not write, and a reader's fatal error (an
// allocation sized by a number in the file, found several times) would end the window with
// every session. The child opens the file itself and answers with its text.

const officeWork = "office"

func init() { child.Serve(officeWork, serveOffice) }

type officeRequest struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
}

type officeAnswer struct {
	Text string `json:"text,omitempty"`
	// Error is why the file cannot be read; Encrypted and Corrupt say which sentinel it is.
	Error     string `json:"error,omitempty"`
	Encrypted bool   `json:"encrypted,omitempty"`
	Corrupt   bool   `json:"corrupt,omitempty"`
}

// officeTextInChild is officeText in a child process under child.DefaultLimits: the same text
// or the same errors (errors.Is finds errEncryptedOffice and errCorruptOffice), and
// errTooLargeOffice when the child went past a limit.
func officeTextInChild(ctx context.Context, kind, abs string) (string, error) {
	return officeTextLimited(ctx, kind, abs, child.DefaultLimits)
}

func officeTextLimited(ctx context.Context, kind, abs string, lim child.Limits) (string, error) {
	var ans *officeAnswer
	err := child.Run(ctx, officeWork, officeRequest{Kind: kind, Path: abs}, nil, lim, func(raw json.RawMessage) error {
		ans = &officeAnswer{}
		return json.Unmarshal(raw, ans)
	})
	var died *child.Died
	switch {
	case errors.As(err, &died) && died.Limit:
		return "", fmt.Errorf("%w: reading it %s", errTooLargeOffice, died.Reason)
	case errors.As(err, &died):
		return "", fmt.Errorf("%w: the reader %s", errCorruptOffice, died.Reason)
	case err != nil:
		return "", err
	case ans == nil:
		return "", fmt.Errorf("%w: the reader gave no answer", errCorruptOffice)
	case ans.Encrypted:
		return "", fmt.Errorf("%w%s", errEncryptedOffice, ans.Error)
	case ans.Corrupt:
		return "", fmt.Errorf("%w%s", errCorruptOffice, ans.Error)
	case ans.Error != "":
		return "", errors.New(ans.Error)
	}
	return ans.Text, nil
}

// serveOffice is the child's side. An error's text is sent after its sentinel's, which the
// parent puts back in front.
func serveOffice(raw json.RawMessage, _ io.Reader, send func(any)) error {
	var req officeRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return fmt.Errorf("read the request: %w", err)
	}
	text, err := officeText(req.Kind, req.Path)
	switch {
	case err == nil:
		send(officeAnswer{Text: text})
	case errors.Is(err, errEncryptedOffice):
		send(officeAnswer{Encrypted: true, Error: after(err, errEncryptedOffice)})
	case errors.Is(err, errCorruptOffice):
		send(officeAnswer{Corrupt: true, Error: after(err, errCorruptOffice)})
	default:
		send(officeAnswer{Error: err.Error()})
	}
	return nil
}

// after is err's text after its sentinel's ("damaged: not a zip archive" → ": not a zip
// archive"), or all of it when it does not start so.
func after(err, sentinel error) string {
	s, p := err.Error(), sentinel.Error()
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return ": " + s
}
