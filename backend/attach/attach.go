// Package attach turns what the user attaches to a message (an image picked, dropped or
// pasted; a text, code, PDF or Office file) into a store.Attachment: the bytes kept in the
// store, a file read as text by the readers read_files uses, the tokens it costs counted.
package attach

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/gif" // decoders for image.DecodeConfig
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/coding"
)

// Limits of one attachment.
const (
	// MaxImageBytes is what the vision APIs accept (read_files' image limit).
	MaxImageBytes = coding.MaxImageBytes
	// MaxFileBytes bounds a file as sent by the window: its base64 must fit one call's body
	// (32 MB, app/server.go).
	MaxFileBytes = 20 << 20
	// TextBudget is the characters of a file's text the model reads (read_files' cap per
	// file, about 25k tokens); past it the text is clipped and says so.
	TextBudget = coding.MaxFileChars
)

// Parts keeps attached bytes (store.Store.PutRequestPart: named by their sha256).
type Parts interface {
	PutRequestPart(data []byte) (string, error)
}

// Read makes an attachment of data, a file the user named name: an image (PNG, JPEG, GIF,
// WebP) stays an image, anything else is read as text. The bytes are kept in parts. A file
// that cannot be read fails with the reader's reason, naming the file.
func Read(ctx context.Context, parts Parts, name string, data []byte) (store.Attachment, error) {
	name = filepath.Base(strings.TrimSpace(name))
	if name == "" || name == "." || name == "/" {
		name = "attachment"
	}
	if len(data) == 0 {
		return store.Attachment{}, fmt.Errorf("%s is empty: nothing to attach", name)
	}
	if mime, ok := ImageType(data); ok {
		return readImage(parts, name, mime, data)
	}
	if len(data) > MaxFileBytes {
		return store.Attachment{}, fmt.Errorf("%s is too large to attach (%s; the limit is %s)", name, size(len(data)), size(MaxFileBytes))
	}
	text, clipped, err := readText(ctx, name, data)
	if err != nil {
		return store.Attachment{}, err
	}
	key, err := parts.PutRequestPart(data)
	if err != nil {
		return store.Attachment{}, fmt.Errorf("keep %s: %w", name, err)
	}
	if clipped {
		text += fmt.Sprintf("[clipped: only the start of %s is here, %d characters of its text; attach a smaller part to show the rest]\n", name, TextBudget)
	}
	mime := http.DetectContentType(data)
	if strings.HasPrefix(mime, "text/plain") || mime == "application/octet-stream" {
		mime = "" // says nothing the name does not
	}
	return store.Attachment{Kind: store.AttachFile, URI: name, Name: name, MimeType: mime, Text: text,
		Size: len(data), Blob: key, Tokens: tokens.Count(text), Clipped: clipped}, nil
}

func readImage(parts Parts, name, mime string, data []byte) (store.Attachment, error) {
	if len(data) > MaxImageBytes {
		return store.Attachment{}, fmt.Errorf("%s is too large for a model to see (%s; vision APIs take up to %s)", name, size(len(data)), size(MaxImageBytes))
	}
	if mime != "image/webp" {
		if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
			return store.Attachment{}, fmt.Errorf("%s is not a valid image: %w", name, err)
		}
	}
	key, err := parts.PutRequestPart(data)
	if err != nil {
		return store.Attachment{}, fmt.Errorf("keep %s: %w", name, err)
	}
	return store.Attachment{Kind: store.AttachImage, URI: name, Name: name, MimeType: mime, Size: len(data),
		Blob: key, Tokens: tokens.PerImage}, nil
}

// ImageType is the MIME type of an image vision APIs take, from its bytes.
func ImageType(data []byte) (string, bool) {
	switch m := http.DetectContentType(data); m {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return m, true
	}
	return "", false
}

// readText reads a file through read_files' readers, from a private copy under the
// temporary directory (the readers take a path; PDFs and Office files are read in a child).
func readText(ctx context.Context, name string, data []byte) (string, bool, error) {
	dir, err := os.MkdirTemp("", "tofu-attach-")
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", name, err)
	}
	defer os.RemoveAll(dir)
	abs := filepath.Join(dir, name)
	if err := os.WriteFile(abs, data, 0o600); err != nil {
		return "", false, fmt.Errorf("read %s: %w", name, err)
	}
	text, clipped, problem := coding.ReadAttached(ctx, abs, name, TextBudget)
	if problem != "" {
		return "", false, &Unreadable{Name: name, Reason: problem}
	}
	return text, clipped, nil
}

// Unreadable is a file the readers cannot turn into text (a binary file, a scan without a
// text layer, a password-protected document).
type Unreadable struct{ Name, Reason string }

func (e *Unreadable) Error() string {
	return fmt.Sprintf("%s cannot be attached: %s (attach text, code, PDF, Word, Excel, PowerPoint or an image)", e.Name, e.Reason)
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
