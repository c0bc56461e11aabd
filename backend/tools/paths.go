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

// RealPath resolves symlinks and ".." the way the OS would, component by component, so that
// a path through a symlinked directory, a link whose target does not exist yet (a write
// through it creates the target), or "link/.." all name where the kernel would really go.
// Where a component does not exist the rest is taken as written. p must be absolute; it need
// not be clean: a shell resolves "link/../x" through the link, not lexically.
func RealPath(p string) string {
	hops := 0
	return realPath(p, &hops)
}

// maxLinks is how many symlinks one resolution follows, as Linux's ELOOP limit.
const maxLinks = 40

func realPath(p string, hops *int) string {
	sep := string(filepath.Separator)
	cur := sep
	parts := strings.Split(p, sep)
	for i, part := range parts {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Clean(filepath.Join(append([]string{next}, parts[i+1:]...)...))
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if *hops++; err != nil || *hops > maxLinks {
			return filepath.Clean(filepath.Join(append([]string{next}, parts[i+1:]...)...))
		}
		if !filepath.IsAbs(target) {
			target = cur + sep + target
		}
		cur = realPath(target, hops)
	}
	return cur
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
