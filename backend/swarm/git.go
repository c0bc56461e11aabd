package swarm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// workspaces keeps coders from corrupting each other's edits. In a git repository each coder
// works in a worktree of its own on a branch from HEAD, and its commit is merged back into
// the workspace when it finishes, one merge at a time, with a report of any conflict (the
// branch is then kept for the user). Elsewhere coders take turns: one edits the workspace at
// a time, so two never write the same file at once.
type workspaces struct {
	dir  string
	repo bool

	merge sync.Mutex // one merge into the workspace at a time
	edit  sync.Mutex // outside git: one coder at a time
}

func newWorkspaces(ctx context.Context, dir string) *workspaces {
	w := &workspaces{dir: dir}
	if dir != "" {
		out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
		w.repo = err == nil && strings.TrimSpace(out) != ""
	}
	return w
}

// coderSpace is where one coder attempt works and what to do once it finished.
type coderSpace struct {
	dir    string
	branch string // "" outside git: nothing to merge
	// done merges a finished attempt's worktree back and reports how (git only).
	done func(ctx context.Context, summary string) (report string, err error)
	// discard drops an attempt that did not finish (its next attempt starts from HEAD).
	discard func(ctx context.Context)
	// release lets the next coder edit (outside git), once the attempt's end is recorded.
	release func()
}

// forCoder gives a coder attempt its workspace. Outside git it holds the edit lock until released.
func (w *workspaces) forCoder(ctx context.Context, id string) (*coderSpace, error) {
	if !w.repo {
		w.edit.Lock()
		var once sync.Once
		return &coderSpace{dir: w.dir, discard: func(context.Context) {}, release: func() { once.Do(w.edit.Unlock) }}, nil
	}
	parent, err := os.MkdirTemp("", "tofu-swarm-")
	if err != nil {
		return nil, fmt.Errorf("make a worktree directory: %w", err)
	}
	dir := filepath.Join(parent, "work")
	branch := "tofu-swarm/" + id
	if _, err := git(ctx, w.dir, "worktree", "add", "-q", "-b", branch, dir, "HEAD"); err != nil {
		os.RemoveAll(parent)
		return nil, fmt.Errorf("add a worktree for a coder: %w", err)
	}
	remove := func(ctx context.Context) {
		git(ctx, w.dir, "worktree", "remove", "--force", dir)
		os.RemoveAll(parent)
	}
	cs := &coderSpace{dir: dir, branch: branch, release: func() {}}
	cs.done = func(ctx context.Context, summary string) (string, error) {
		ctx = context.WithoutCancel(ctx)
		defer remove(ctx)
		return w.mergeBack(ctx, dir, branch, summary)
	}
	cs.discard = func(ctx context.Context) {
		remove(ctx)
		git(ctx, w.dir, "branch", "-D", branch)
	}
	return cs, nil
}

// mergeBack commits what the coder changed in its worktree and merges the branch into the
// workspace. A conflict (or uncommitted changes in the workspace that the merge would
// overwrite) aborts the merge and is reported with the files; the branch stays for the user.
func (w *workspaces) mergeBack(ctx context.Context, dir, branch, summary string) (string, error) {
	if _, err := git(ctx, dir, "add", "-A"); err != nil {
		return "", err
	}
	if out, _ := git(ctx, dir, "status", "--porcelain"); strings.TrimSpace(out) == "" {
		git(ctx, w.dir, "branch", "-D", branch)
		return "no changes", nil
	}
	msg := "swarm: " + firstLine(summary, 72)
	if _, err := git(ctx, dir, "-c", "user.name=Tofu", "-c", "user.email=tofu@localhost", "commit", "-q", "--no-verify", "-m", msg); err != nil {
		return "", err
	}
	files, _ := git(ctx, dir, "diff", "--name-only", "HEAD~1", "HEAD")
	w.merge.Lock()
	defer w.merge.Unlock()
	out, err := git(ctx, w.dir, "-c", "user.name=Tofu", "-c", "user.email=tofu@localhost", "merge", "--no-ff", "--no-verify", "-q", "-m", "Merge "+branch, branch)
	if err == nil {
		git(ctx, w.dir, "branch", "-D", branch)
		return "merged " + strings.Join(strings.Fields(files), ", "), nil
	}
	conflicts, _ := git(ctx, w.dir, "diff", "--name-only", "--diff-filter=U")
	git(ctx, w.dir, "merge", "--abort")
	what := strings.Join(strings.Fields(conflicts), ", ")
	if what == "" {
		what = strings.TrimSpace(firstLine(out, 300))
	}
	return fmt.Sprintf("CONFLICT: not merged (%s); the changes are on branch %s", what, branch), nil
}

// git runs git in dir and returns its output (stdout and stderr).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true")
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		return b.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(b.String()))
	}
	return b.String(), nil
}

// firstLine is s's first line, cut to n runes.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
