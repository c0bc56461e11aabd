package swarm

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// snapshot is a commit of the workspace as it is now, for a coder's worktree to start from:
// HEAD and every uncommitted change of the user's (staged, unstaged, and untracked files that
// are not ignored), so that a coder sees the work in progress it is asked to build on. It is
// made through a temporary index (a copy of the user's, for its cached file states): the
// user's branch, index, working tree and stash list are not touched, and the commit is on no
// branch until the coder's own one starts from it. A clean workspace is HEAD itself.
// It runs under the merge lock, so it never sees another coder's patch half applied.
func (w *workspaces) snapshot(ctx context.Context) (string, error) {
	w.merge.Lock()
	defer w.merge.Unlock()
	tmp, err := os.CreateTemp("", "tofu-swarm-index-")
	if err != nil {
		return "", fmt.Errorf("snapshot the workspace: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := copyIndex(ctx, w.top, tmp.Name()); err != nil {
		return "", err
	}
	env := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	if _, err := gitEnv(ctx, w.top, env, nil, "add", "-A", "--", "."); err != nil {
		return "", fmt.Errorf("snapshot the workspace: %w", err)
	}
	tree, err := gitEnv(ctx, w.top, env, nil, "write-tree")
	if err != nil {
		return "", fmt.Errorf("snapshot the workspace: %w", err)
	}
	tree = strings.TrimSpace(tree)
	head, herr := git(ctx, w.top, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	head = strings.TrimSpace(head)
	args := []string{"-c", "user.name=Tofu", "-c", "user.email=tofu@localhost", "commit-tree", tree,
		"-m", "tofu swarm: the workspace as a coder started"}
	if herr == nil {
		if headTree, _ := git(ctx, w.top, "rev-parse", "HEAD^{tree}"); strings.TrimSpace(headTree) == tree {
			return head, nil // nothing uncommitted
		}
		args = append(args, "-p", head)
	}
	commit, err := git(ctx, w.top, args...)
	if err != nil {
		return "", fmt.Errorf("snapshot the workspace: %w", err)
	}
	return strings.TrimSpace(commit), nil
}

// copyIndex copies the repository's index to path (nothing when it has none yet).
func copyIndex(ctx context.Context, top, path string) error {
	rel, err := git(ctx, top, "rev-parse", "--git-path", "index")
	if err != nil {
		return fmt.Errorf("find the index: %w", err)
	}
	src := strings.TrimSpace(rel)
	if !filepath.IsAbs(src) {
		src = filepath.Join(top, src)
	}
	in, err := os.Open(src)
	if os.IsNotExist(err) {
		return os.Remove(path) // git starts an empty index
	}
	if err != nil {
		return fmt.Errorf("read the index: %w", err)
	}
	defer in.Close()
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy the index: %w", err)
	}
	return out.Close()
}
