package coding

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	ignore "github.com/sabhiram/go-gitignore"

	"github.com/tofu-research/tofu/backend/tools"
)

// ignorer answers whether a path is excluded by the .gitignore files above and inside a walk,
// as ripgrep does: hidden entries and .git are skipped too, unless named as the walk's root.
type ignorer struct {
	byDir map[string]*ignore.GitIgnore // dir → its compiled .gitignore (nil if none)
}

func newIgnorer(workspace, root string) *ignorer {
	ig := &ignorer{byDir: map[string]*ignore.GitIgnore{}}
	// The .gitignore files between the workspace (or the repository root above it) and root
	// apply to root's contents.
	top := workspace
	if !tools.Within(workspace, root) {
		top = root
	}
	for d := filepath.Dir(root); tools.Within(top, d); d = filepath.Dir(d) {
		ig.load(d)
		if d == top {
			break
		}
	}
	return ig
}

func (ig *ignorer) load(dir string) {
	if _, done := ig.byDir[dir]; done {
		return
	}
	gi, err := ignore.CompileIgnoreFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		gi = nil
	}
	ig.byDir[dir] = gi
}

// ignored reports whether path (absolute) is excluded by a loaded .gitignore of an ancestor.
func (ig *ignorer) ignored(path string, isDir bool) bool {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if gi := ig.byDir[d]; gi != nil {
			rel, err := filepath.Rel(d, path)
			if err == nil {
				rel = filepath.ToSlash(rel)
				if gi.MatchesPath(rel) || (isDir && gi.MatchesPath(rel+"/")) {
					return true
				}
			}
		}
		if parent := filepath.Dir(d); parent == d {
			return false
		}
	}
}

// walkFiles calls fn for every regular file under root that is not hidden or ignored, in
// lexical order. Returning fs.SkipAll from fn stops the walk.
func walkFiles(ctx context.Context, workspace, root string, fn func(path string, d fs.DirEntry) error) error {
	ig := newIgnorer(workspace, root)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil // unreadable entries are skipped, as rg does
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path != root {
			name := d.Name()
			if strings.HasPrefix(name, ".") || ig.ignored(path, d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			ig.load(path)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return fn(path, d)
	})
	if err == fs.SkipAll {
		return nil
	}
	return err
}

// isBinary reports whether head (a file's first bytes) looks like binary data.
func isBinary(head []byte) bool {
	if len(head) > 8000 {
		head = head[:8000]
	}
	for _, b := range head {
		if b == 0 {
			return true
		}
	}
	return false
}

func statDir(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &fs.PathError{Op: "stat", Path: p, Err: fs.ErrInvalid}
	}
	return nil
}
