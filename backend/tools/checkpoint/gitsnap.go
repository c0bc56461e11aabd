package checkpoint

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/store"
)

// A command declares no files, so what it changed is found from the workspace's git status
// before and after it: the files dirty or untracked before are read then; a file clean before
// was its index version. Outside a git repository, in ignored files, in submodules, and in a
// repository whose config names filter drivers (which git status could run: they are the
// repository's programs, not the user's command) a command's changes are not recorded.

// maxDirty is the most dirty or untracked files a snapshot reads before a command, and
// maxDirtyBytes the most bytes; past either the command's changes are not recorded (a tree of
// build output nobody ignored would be read before every command).
const (
	maxDirty      = 2000
	maxDirtyBytes = 64 << 20
)

// gitTimeout bounds each git command of a snapshot.
const gitTimeout = 10 * time.Second

type gitSnapshot struct {
	top    string           // the repository's top level
	before map[string]state // the dirty and untracked files before, by path relative to the workspace
	ok     bool
}

// snapshotGit records the dirty and untracked files of root's repository (within root).
func (r *Recorder) snapshotGit(ctx context.Context, root string) *gitSnapshot {
	s := &gitSnapshot{}
	out, err := git(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		return s
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil {
		return s
	}
	// Filter drivers are programs git status may run (to re-hash a file): not the user's.
	if out, _ := git(ctx, root, "config", "--get-regexp", `^filter\.`); len(bytes.TrimSpace(out)) > 0 {
		return s
	}
	s.top = top
	paths, ok := s.status(ctx, root)
	if !ok || len(paths) > maxDirty {
		return s
	}
	var total int64
	for _, rel := range paths {
		if fi, err := os.Lstat(filepath.Join(root, rel)); err == nil && fi.Mode().IsRegular() {
			if total += fi.Size(); total > maxDirtyBytes {
				return s
			}
		}
	}
	s.before = map[string]state{}
	for _, rel := range paths {
		s.before[rel] = r.read(root, rel)
	}
	s.ok = true
	return s
}

// status lists the dirty and untracked files within root, relative to root.
func (s *gitSnapshot) status(ctx context.Context, root string) ([]string, bool) {
	out, err := git(ctx, root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all", "--", ".")
	if err != nil {
		return nil, false
	}
	var paths []string
	for _, entry := range strings.Split(string(out), "\x00") {
		if len(entry) < 4 {
			continue
		}
		rel, err := filepath.Rel(root, filepath.Join(s.top, entry[3:]))
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		paths = append(paths, filepath.ToSlash(rel))
	}
	return paths, true
}

// changes are the files the command changed: dirty or untracked before or after, and now
// different. A file already recorded by the call's own declared writes is left to those.
func (s *gitSnapshot) changes(ctx context.Context, r *Recorder, root string, written map[string]state) []store.FileChange {
	if !s.ok {
		return nil
	}
	after, ok := s.status(ctx, root)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	var out []store.FileChange
	for _, rel := range append(sortedKeys(s.before), after...) {
		if seen[rel] {
			continue
		}
		seen[rel] = true
		if _, own := written[rel]; own {
			continue
		}
		before, dirty := s.before[rel]
		if !dirty {
			before = s.indexVersion(ctx, r, root, rel)
		}
		if c, ok := r.change(root, rel, before, "git"); ok {
			out = append(out, c)
		}
	}
	return out
}

// indexVersion is a file clean before the command: its content in the index (no file when the
// index has none: it was created).
func (s *gitSnapshot) indexVersion(ctx context.Context, r *Recorder, root, rel string) state {
	path := filepath.Join(root, rel)
	top, err := filepath.Rel(s.top, path)
	if err != nil {
		return state{}
	}
	out, err := git(ctx, root, "ls-files", "--stage", "-z", "--", ":(top,literal)"+filepath.ToSlash(top))
	if err != nil {
		return state{}
	}
	line := strings.TrimSuffix(string(out), "\x00")
	if line == "" {
		return state{ok: true} // untracked before: it did not exist
	}
	fields := strings.Fields(strings.SplitN(line, "\t", 2)[0])
	if len(fields) < 2 || !strings.HasPrefix(fields[0], "100") {
		return state{} // a symlink or a submodule: not recorded
	}
	data, err := git(ctx, root, "cat-file", "blob", fields[1])
	if err != nil || len(data) > MaxFile {
		return state{}
	}
	hash, err := r.put(data)
	if err != nil {
		return state{}
	}
	mode, _ := strconv.ParseUint(fields[0][3:], 8, 32)
	return state{hash: hash, mode: fs.FileMode(mode), ok: true}
}

// git runs git in dir with the repository's programs switched off where the command line can
// (fsmonitor, hooks), no system or global config, and no optional locks (a status must not
// take the index lock from the user's own git).
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	full := append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-optional-locks"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0")
	return cmd.Output()
}

func sortedKeys(m map[string]state) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortChanges(cs []store.FileChange) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
}
