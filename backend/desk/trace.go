package desk

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/tofu-research/tofu/backend/trace"
)

// ExportTrace returns a conversation's trace in format (trace.Formats; docs/TRACE.md): the
// browser downloads it.
func (s *Desk) ExportTrace(id, format string) (string, error) {
	var buf bytes.Buffer
	if err := trace.Export(&buf, s.store, id, format); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// SaveTrace writes a conversation's trace in format to a file the user picks in the window's
// save dialog and returns its path ("" when cancelled): WebKitGTK ignores download links.
func (s *Desk) SaveTrace(id, format string) (string, error) {
	d := s.dialogs()
	if d == nil {
		return "", errors.New("there is no save dialog in the browser: the page downloads the file")
	}
	text, err := s.ExportTrace(id, format)
	if err != nil {
		return "", err
	}
	path, err := d.ChooseSaveFile("Export trace", traceFileName(id, format))
	if err != nil || path == "" {
		return "", err
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

func traceFileName(id, format string) string {
	if format == trace.FormatMiniSWEAgent {
		return id + ".traj.json"
	}
	if format == "" {
		format = trace.FormatTofu
	}
	return id + "." + format + ".json"
}
