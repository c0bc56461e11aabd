package tools

import (
	"os"
	"path/filepath"
	"strings"
)

// AbsPath resolves a path as a model wrote it: "~" and "~/…" are the home directory, "file://"
// is dropped, relative paths are relative to workspace; the result is absolute and clean.
// Tools and the permission policy both resolve through it, so they agree on the file.
func AbsPath(workspace, p string) string {
	p = strings.TrimPrefix(strings.TrimSpace(p), "file://")
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workspace, p)
	}
	return filepath.Clean(p)
}

// RealPath resolves symlinks and ".." the way the OS would in the longest existing prefix of
// the absolute path p and appends the rest, so a file about to be created under a symlinked
// directory resolves to where it will really be written. p need not be clean: a shell resolves
// "link/../x" through the link, not lexically.
func RealPath(p string) string {
	parts := strings.Split(p, string(filepath.Separator))
	for i := len(parts); i > 0; i-- {
		prefix := strings.Join(parts[:i], string(filepath.Separator))
		if prefix == "" {
			prefix = string(filepath.Separator)
		}
		if r, err := filepath.EvalSymlinks(prefix); err == nil {
			return filepath.Clean(filepath.Join(append([]string{r}, parts[i:]...)...))
		}
	}
	return filepath.Clean(p)
}

// Within reports whether path is dir or inside it (both absolute and clean).
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Rel returns path relative to workspace when inside it, else path itself: what tool output
// shows, short and unambiguous.
func Rel(workspace, path string) string {
	if Within(workspace, path) {
		if r, err := filepath.Rel(workspace, path); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return path
}
