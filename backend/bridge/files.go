package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/attach"
	"github.com/tofu-research/tofu/backend/store"
)

// MaxFileBytes bounds a file taken from a chat or sent into one: the window's limit on an
// attachment (and the Bot API's on what a bot may download).
const MaxFileBytes = attach.MaxFileBytes

// take keeps the files of a message (its sender allowed: only then is a file downloaded):
// each is saved into the conversation's workspace (a file of the same name and other content
// is not overwritten: the new one gets a number) and read as the window's attachments are (an
// image stays an image, the rest becomes text). What could not be taken is said in problems,
// naming the file.
func (b *Bridge) take(ctx context.Context, conv Conversation, files []File) (atts []store.Attachment, problems []string) {
	if len(files) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(conv.Workspace, 0o755); err != nil {
		return nil, []string{"the conversation's workspace: " + err.Error()}
	}
	for _, f := range files {
		name := safeName(f.Name)
		if f.Size > MaxFileBytes {
			problems = append(problems, fmt.Sprintf("%s is too large (%d MB; the limit is %d MB)", name, f.Size>>20, MaxFileBytes>>20))
			continue
		}
		data, err := f.Fetch(ctx, MaxFileBytes)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		saved, err := saveNew(conv.Workspace, name, data)
		if err != nil {
			problems = append(problems, "could not save "+name+": "+err.Error())
			continue
		}
		a, err := attach.Read(ctx, b.o.Store, saved, data)
		if err != nil {
			problems = append(problems, err.Error()+" (it is saved in the workspace as "+saved+")")
			continue
		}
		atts = append(atts, a)
	}
	return atts, problems
}

// safeName is a file name from a chat as a plain name in the workspace.
func safeName(name string) string {
	name = filepath.Base(strings.ReplaceAll(strings.TrimSpace(name), "\\", "/"))
	if name == "" || name == "." || name == "/" || name == ".." {
		return "file"
	}
	return name
}

// saveNew writes data as name in dir, or as "name (2)" … when a different file has that name;
// the same file sent again is not written twice. It returns the name used.
func saveNew(dir, name string, data []byte) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		try := name
		if i > 1 {
			try = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		p := filepath.Join(dir, try)
		old, err := os.ReadFile(p)
		if err == nil && bytes.Equal(old, data) {
			return try, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return try, os.WriteFile(p, data, 0o644)
		}
	}
	return "", fmt.Errorf("too many files named %s", name)
}

// filesText is the user's words for a message that is only files.
func filesText(atts []store.Attachment) string {
	names := make([]string, len(atts))
	for i, a := range atts {
		names[i] = a.Name
	}
	return "(sent " + strings.Join(names, ", ") + ")"
}

// sendFile sends the workspace's file at path (relative to the workspace, or absolute inside
// it) into the chat: /file PATH. A path outside the workspace, through a link or "..", is
// refused, as are folders and files past MaxFileBytes.
func (b *Bridge) sendFile(ctx context.Context, conv Conversation, path string) string {
	sender, ok := b.o.Platform.(FileSender)
	if !ok {
		return "This chat app cannot receive files from Tofu yet."
	}
	path = strings.TrimSpace(path)
	if path == "" {
		return "Which file? /file PATH sends a file of the conversation's workspace (" + conv.Workspace + ")."
	}
	full, err := inside(conv.Workspace, path)
	if err != nil {
		return err.Error()
	}
	info, err := os.Stat(full)
	switch {
	case err != nil:
		return fmt.Sprintf("No file %s in the workspace.", path)
	case info.IsDir():
		return fmt.Sprintf("%s is a folder: /file sends one file.", path)
	case info.Size() > MaxFileBytes:
		return fmt.Sprintf("%s is too large to send (%d MB; the limit is %d MB).", path, info.Size()>>20, MaxFileBytes>>20)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return "Tofu could not read " + path + ": " + err.Error()
	}
	err = patiently(ctx, func() error {
		_, err := sender.SendFile(ctx, conv.Chat, filepath.Base(full), data)
		return err
	})
	if err != nil {
		return "Tofu could not send " + path + ": " + err.Error()
	}
	return ""
}

// inside resolves path in the workspace ws, links followed, and refuses one that ends outside.
func inside(ws, path string) (string, error) {
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", fmt.Errorf("the workspace %s: %w", ws, err)
	}
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(ws, full)
	}
	if real, err := filepath.EvalSymlinks(full); err == nil {
		full = real
	} else if rel, err := filepath.Rel(ws, filepath.Clean(full)); err == nil && filepath.IsLocal(rel) {
		full = filepath.Join(root, rel) // not there: said by the caller, if inside
	}
	rel, err := filepath.Rel(root, full)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is outside the conversation's workspace (%s): /file sends only its files", path, ws)
	}
	return full, nil
}
