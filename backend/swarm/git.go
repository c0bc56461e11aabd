package swarm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// workspaces keeps coders from corrupting each other's edits. In a git repository each coder
// works in a worktree of its own on a branch from a snapshot of the workspace as the coder
// starts (HEAD with the user's uncommitted changes: snapshot.go), and its own changes are
// applied back to the workspace, uncommitted, when it finishes, one coder at a time, with a
// report of any conflict (the branch is then kept for the user). Elsewhere coders take turns:
// one edits the workspace at a time, so two never write the same file at once.
type workspaces struct {
	dir    string
	repo   bool
	top    string // the repository's top level
	prefix string // dir below top ("" or ending in "/")

	merge sync.Mutex // one merge into the workspace at a time
	edit  sync.Mutex // outside git: one coder at a time
}

func newWorkspaces(ctx context.Context, dir string) *workspaces {
	w := &workspaces{dir: dir}
	if dir != "" {
		out, err := gitStdout(ctx, dir, "rev-parse", "--show-toplevel", "--show-prefix")
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		w.repo = err == nil && len(lines) >= 1 && lines[0] != ""
		if w.repo {
			w.top = lines[0]
			if len(lines) > 1 {
				w.prefix = lines[1]
			}
		}
	}
	return w
}

// coderSpace is where one coder attempt works and what to do once it finished.
type coderSpace struct {
	dir    string // where the coder works: the worktree's copy of the workspace
	branch string // "" outside git: nothing to merge
	base   string // the snapshot commit the branch starts from: the coder's diff is from it
	// done merges a finished attempt's worktree back and reports how (git only).
	done func(ctx context.Context, summary string) (report string, err error)
	// discard drops an attempt that failed (its next attempt starts from a new snapshot).
	discard func(ctx context.Context)
	root    string // the worktree (dir is its copy of the workspace)
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
	base, err := w.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	parent, err := os.MkdirTemp("", "tofu-swarm-")
	if err != nil {
		return nil, fmt.Errorf("make a worktree directory: %w", err)
	}
	dir := filepath.Join(parent, "work")
	branch := "tofu-swarm/" + id
	// An attempt restarted after its worktree vanished may find its branch left: a new name.
	for n := 2; ; n++ {
		if _, err := git(ctx, w.dir, "rev-parse", "--verify", "-q", "refs/heads/"+branch); err != nil {
			break
		}
		branch = fmt.Sprintf("tofu-swarm/%s-r%d", id, n)
	}
	if _, err := git(ctx, w.dir, "worktree", "add", "-q", "-b", branch, dir, base); err != nil {
		os.RemoveAll(parent)
		return nil, fmt.Errorf("add a worktree for a coder: %w", err)
	}
	return w.space(dir, branch, base), nil
}

// resume gives an interrupted coder attempt the worktree it worked in (root, from base),
// with what it changed there so far, or says why it cannot: the directory is gone (a reboot
// cleared the temporary directory), or it is no longer a worktree of this repository on a
// swarm branch.
func (w *workspaces) resume(ctx context.Context, root, base string) (*coderSpace, error) {
	if !w.repo || root == "" || base == "" {
		return nil, fmt.Errorf("no worktree was recorded")
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		w.forget(ctx, root)
		return nil, fmt.Errorf("its worktree %s is gone", root)
	}
	list, err := git(ctx, w.dir, "worktree", "list", "--porcelain")
	if err != nil || !slices.Contains(strings.Split(list, "\n"), "worktree "+root) {
		return nil, fmt.Errorf("%s is no longer a worktree of the repository", root)
	}
	branch, err := git(ctx, root, "symbolic-ref", "--short", "HEAD")
	if branch = strings.TrimSpace(branch); err != nil || !strings.HasPrefix(branch, "tofu-swarm/") {
		return nil, fmt.Errorf("the worktree %s is not on a swarm branch", root)
	}
	if _, err := git(ctx, root, "merge-base", "--is-ancestor", base, "HEAD"); err != nil {
		return nil, fmt.Errorf("the worktree %s no longer starts from its snapshot", root)
	}
	return w.space(root, branch, base), nil
}

// forget drops what git still knows of a coder worktree whose directory is gone: its entry
// and its branch. The branch holds no work of the coder's (a coder commits only to merge
// back, which removes its worktree): only the snapshot it started from.
func (w *workspaces) forget(ctx context.Context, root string) {
	list, _ := git(ctx, w.dir, "worktree", "list", "--porcelain")
	branch := ""
	for _, entry := range strings.Split(list, "\n\n") {
		if strings.HasPrefix(entry, "worktree "+root+"\n") {
			for _, line := range strings.Split(entry, "\n") {
				if b, ok := strings.CutPrefix(line, "branch refs/heads/"); ok && strings.HasPrefix(b, "tofu-swarm/") {
					branch = b
				}
			}
		}
	}
	git(ctx, w.dir, "worktree", "prune")
	if branch != "" {
		git(ctx, w.dir, "branch", "-D", branch)
	}
}

// space is the coder space of worktree dir on branch, started from base.
func (w *workspaces) space(dir, branch, base string) *coderSpace {
	parent := filepath.Dir(dir)
	remove := func(ctx context.Context) {
		git(ctx, w.dir, "worktree", "remove", "--force", dir)
		os.RemoveAll(parent)
	}
	cs := &coderSpace{dir: filepath.Join(dir, w.prefix), root: dir, branch: branch, base: base, release: func() {}}
	cs.done = func(ctx context.Context, summary string) (string, error) {
		ctx = context.WithoutCancel(ctx)
		report, keep, err := w.mergeBack(ctx, dir, branch, base, summary)
		remove(ctx) // before the branch goes: git keeps a branch checked out in a worktree
		if !keep {
			git(ctx, w.dir, "branch", "-D", branch)
		}
		return report, err
	}
	cs.discard = func(ctx context.Context) {
		remove(ctx)
		git(ctx, w.dir, "branch", "-D", branch)
	}
	return cs
}

// mergeBack takes what the coder changed in its worktree (since base, its snapshot: the
// user's own uncommitted changes are not the coder's) back into the workspace as
// uncommitted changes, the way a single agent's edits land: the user's branch gets no commit
// from Tofu (the agent prompt's git safety: no commit unless asked), and the user reviews and
// commits them. The coder's work is committed on its own temporary branch only to diff it.
// A patch that does not apply (a conflict with another coder's changes or the user's) applies
// nothing and is reported with the files; the branch stays for the user.
// keep says the branch holds work that did not land and stays for the user.
func (w *workspaces) mergeBack(ctx context.Context, dir, branch, base, summary string) (report string, keep bool, err error) {
	if _, err := git(ctx, dir, "add", "-A"); err != nil {
		return "", true, err
	}
	if out, _ := git(ctx, dir, "status", "--porcelain"); strings.TrimSpace(out) != "" {
		msg := "swarm: " + firstLine(summary, 72)
		if _, err := git(ctx, dir, "-c", "user.name=Tofu", "-c", "user.email=tofu@localhost", "commit", "-q", "--no-verify", "-m", msg); err != nil {
			return "", true, err
		}
	}
	// Compared with the snapshot, not the worktree's status: a Tofu that died in the middle
	// of a merge may have committed already.
	if head, _ := git(ctx, dir, "rev-parse", "HEAD"); strings.TrimSpace(head) == base {
		return "no changes", false, nil
	}
	files, _ := git(ctx, dir, "diff", "--no-ext-diff", "--no-textconv", "--name-only", base, "HEAD")
	patch, err := gitStdout(ctx, dir, "diff", "--no-ext-diff", "--no-textconv", "--binary", "--full-index", base, "HEAD")
	if err != nil {
		return "", true, err
	}
	w.merge.Lock()
	defer w.merge.Unlock()
	// From the top level: the patch's paths are the repository's, and git apply in a
	// subdirectory would skip the files outside it.
	out, err := gitStdin(ctx, w.top, patch, "apply", "--whitespace=nowarn", "-")
	if err == nil {
		return "merged " + strings.Join(strings.Fields(files), ", ") + " (uncommitted in the workspace)", false, nil
	}
	var failed []string
	for _, m := range patchFailed.FindAllStringSubmatch(out, -1) {
		if !slices.Contains(failed, m[1]) {
			failed = append(failed, m[1])
		}
	}
	what := strings.Join(failed, ", ")
	if what == "" {
		what = strings.TrimSpace(firstLine(out, 300))
	}
	return fmt.Sprintf("CONFLICT: not merged (%s); the changes are on branch %s", what, branch), true, nil
}

// patchFailed finds the files git apply could not patch ("error: patch failed: a.go:12",
// "error: a.go: patch does not apply", "error: a.go: already exists in working directory").
var patchFailed = regexp.MustCompile(`(?m)^error: (?:patch failed: )?([^:\n]+?)(?::\d+$|: patch does not apply|: already exists in working directory|: does not exist in index|: No such file or directory)`)

// gitStdout runs git in dir and returns its standard output alone (a patch must not carry
// warnings).
func gitStdout(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append(hardened(ctx, dir), args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out, nil
}

// gitStdin runs git in dir with in as its standard input.
func gitStdin(ctx context.Context, dir string, in []byte, args ...string) (string, error) {
	return gitEnv(ctx, dir, nil, in, args...)
}

// gitEnv runs git in dir with env added to its environment and in as its standard input.
func gitEnv(ctx context.Context, dir string, env []string, in []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append(hardened(ctx, dir), args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0"), env...)
	cmd.Stdin = bytes.NewReader(in)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		return b.String(), fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return b.String(), nil
}

// git runs git in dir and returns its output (stdout and stderr).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append(hardened(ctx, dir), args...)...)
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
