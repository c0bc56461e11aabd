package coding

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// The composer's @file mentions: the files of a workspace a user can name, and the one named,
// under the rules find_files walks by (hidden entries and .git skipped, .gitignore honoured,
// links not followed out of the workspace).

// MentionFiles lists the files of workspace (absolute, clean) as slash paths relative to it, in
// lexical order, at most limit of them; more reports that the walk stopped there.
func MentionFiles(ctx context.Context, workspace string, limit int) (paths []string, more bool, err error) {
	err = walkFiles(ctx, workspace, workspace, func(path string, _ fs.DirEntry) error {
		if len(paths) == limit {
			more = true
			return fs.SkipAll
		}
		paths = append(paths, tools.Rel(workspace, path))
		return nil
	})
	return paths, more, err
}

// MentionedFile reads rel, a file of workspace the user @-mentioned, with the rules
// MentionFiles lists by: it must resolve (links followed) to a regular file inside the
// workspace, not hidden and not ignored. It returns the file's bytes.
func MentionedFile(workspace, rel string) ([]byte, error) {
	rel = strings.TrimSpace(rel)
	if rel == "" || filepath.IsAbs(rel) {
		return nil, fmt.Errorf("@%s: name a file by its path inside the workspace", rel)
	}
	path := filepath.Join(workspace, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("@%s: %w", rel, errors.Unwrap(err))
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return nil, fmt.Errorf("the workspace %s: %w", workspace, err)
	}
	if !tools.Within(ws, real) || !tools.Within(workspace, path) {
		return nil, fmt.Errorf("@%s is outside the workspace", rel)
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") {
			return nil, fmt.Errorf("@%s is hidden: mentions name the files find_files lists", rel)
		}
	}
	ig := newIgnorer(ws, filepath.Dir(real))
	for d := filepath.Dir(real); tools.Within(ws, d); d = filepath.Dir(d) {
		ig.load(d) // the walk loads each folder's own .gitignore as it enters it
		if d == ws {
			break
		}
	}
	if ig.ignored(real, false) {
		return nil, fmt.Errorf("@%s is ignored by .gitignore", rel)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("@%s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("@%s is not a file", rel)
	}
	return os.ReadFile(real)
}
