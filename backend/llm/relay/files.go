package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// Files answers through a folder: request N is written as NNNN.request.json (the request as
// llm.Request JSON) and NNNN.request.md (the same for a person), and answered by the file
// NNNN.reply that the person or program writes (see ReplySyntax).
type Files struct {
	Dir string
	// Poll is how often the folder is looked at (default 200ms). A reply is read once its
	// size and modification time hold still for one poll, so an editor's save is not read
	// half-written; writing it elsewhere and renaming it in is always safe.
	Poll time.Duration
	// OnRequest, when set, is told each request's Markdown path once both files are written.
	OnRequest func(n int, mdPath string)
	// OnRefuse, when set, is told why a reply was refused (the NNNN.error file says it too).
	OnRefuse func(n int, msg string)
}

// Paths returns request n's JSON, Markdown and reply paths.
func (f *Files) Paths(n int) (request, markdown, reply string) {
	base := filepath.Join(f.Dir, fmt.Sprintf("%04d", n))
	return base + ".request.json", base + ".request.md", base + ".reply"
}

func (f *Files) Answer(ctx context.Context, n int, req llm.Request) (string, error) {
	jsonPath, mdPath, replyPath := f.Paths(n)
	body, err := json.MarshalIndent(req, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode request: %w", err)
	}
	if err := writeAtomic(jsonPath, body); err != nil {
		return "", err
	}
	var md bytes.Buffer
	Render(&md, n, req)
	fmt.Fprintf(&md, "\nWrite the answer to %s\n", replyPath)
	if err := writeAtomic(mdPath, md.Bytes()); err != nil {
		return "", err
	}
	if f.OnRequest != nil {
		f.OnRequest(n, mdPath)
	}
	return f.wait(ctx, replyPath)
}

// wait polls for path until it exists and holds still; there is no portable file-change
// notification in the standard library, and a person's reply takes seconds anyway.
func (f *Files) wait(ctx context.Context, path string) (string, error) {
	poll := f.Poll
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	var last os.FileInfo
	for {
		if fi, err := os.Stat(path); err == nil {
			if last != nil && fi.Size() == last.Size() && fi.ModTime().Equal(last.ModTime()) {
				b, err := os.ReadFile(path)
				if err != nil {
					return "", fmt.Errorf("read reply: %w", err)
				}
				return string(b), nil
			}
			last = fi
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
	}
}

// Refuse moves the refused reply aside (NNNN.reply.refused) and writes why to NNNN.error, so
// a new NNNN.reply answers the same request.
func (f *Files) Refuse(n int, answer string, why error) error {
	_, _, replyPath := f.Paths(n)
	if err := os.Rename(replyPath, replyPath+".refused"); err != nil {
		return fmt.Errorf("set the refused reply aside: %w", err)
	}
	msg := fmt.Sprintf("The reply to request %d was refused: %v\nWrite a corrected %s.\n", n, why, filepath.Base(replyPath))
	if f.OnRefuse != nil {
		f.OnRefuse(n, msg)
	}
	return writeAtomic(strings.TrimSuffix(replyPath, ".reply")+".error", []byte(msg))
}

// writeAtomic writes through a temporary file so a watcher never sees half a request.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
