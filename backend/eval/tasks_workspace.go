package eval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/sandbox"
)

// gitIdentity lets the workspace commit without the user's git configuration.
var gitIdentity = []string{"-c", "user.name=tofu eval", "-c", "user.email=eval@tofu.invalid", "-c", "commit.gpgsign=false"}

// prepareWorkspace makes dir a fresh repository holding the task's base commit as its only
// commit: the files come from `git archive`, so the user's checkout is only read, and the
// agent cannot find the fix in the history.
func prepareWorkspace(ctx context.Context, t Task, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "git", "-C", t.Repo, "archive", "--format=tar", t.BaseCommit)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var aerr, terr bytes.Buffer
	archive.Stderr, untar.Stderr = &aerr, &terr
	if err := untar.Start(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	if err := archive.Run(); err != nil {
		untar.Wait()
		return fmt.Errorf("git archive %s in %s: %w: %s", t.BaseCommit, t.Repo, err, strings.TrimSpace(aerr.String()))
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("tar: %w: %s", err, strings.TrimSpace(terr.String()))
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"commit", "-q", "--allow-empty", "-m", "base " + t.BaseCommit},
	} {
		if _, err := git(ctx, dir, nil, args...); err != nil {
			return err
		}
	}
	if t.Setup != "" {
		// The suite's own setup, before the agent touched anything: outside the sandbox (it
		// may fetch the project's dependencies).
		if out, err := shell(ctx, dir, t.Setup, 30*time.Minute, nil); err != nil {
			return fmt.Errorf("setup: %w: %s", err, tail(out))
		}
	}
	return nil
}

// applyTests puts the task's tests into the workspace after the agent's turn: the files the
// test patch touches go back to the base first (the agent's edits to them do not count, as in
// SWE-bench), then the patch and the test files go in.
func applyTests(ctx context.Context, t Task, dir string) error {
	if t.TestPatch != "" {
		out, err := git(ctx, dir, []byte(t.TestPatch), "apply", "--numstat", "-")
		if err != nil {
			return fmt.Errorf("test_patch: %w", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				continue
			}
			path := f[2]
			if _, err := git(ctx, dir, nil, "cat-file", "-e", "HEAD:"+path); err == nil {
				if _, err := git(ctx, dir, nil, "checkout", "HEAD", "--", path); err != nil {
					return err
				}
			} else if err := os.Remove(filepath.Join(dir, path)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		if _, err := git(ctx, dir, []byte(t.TestPatch), "apply", "-"); err != nil {
			return fmt.Errorf("test_patch: %w", err)
		}
	}
	for name, body := range t.TestFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !strings.HasPrefix(p, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("test file %q is outside the workspace", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runTest runs one test id with the task's command, inside box when it is not nil; nil when
// it passed.
func runTest(ctx context.Context, cmd, id, dir string, timeout time.Duration, box *sandbox.Boundary) (string, error) {
	q := shellQuote(id)
	if strings.Contains(cmd, "{test}") {
		cmd = strings.ReplaceAll(cmd, "{test}", q)
	} else {
		cmd += " " + q
	}
	return shell(ctx, dir, cmd, timeout, box)
}

// shell runs a command in its own process group, killed whole at the timeout (a test's
// children included); inside box when it is not nil (its Workspace and Temp filled).
func shell(ctx context.Context, dir, command string, timeout time.Duration, box *sandbox.Boundary) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", command)
	c.Dir = dir
	if box != nil {
		if err := box.Wrap(c); err != nil {
			return "", err
		}
	}
	ownGroup(c)
	c.WaitDelay = 5 * time.Second
	out, err := c.CombinedOutput()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %s", timeout)
	}
	return string(out), err
}

func git(ctx context.Context, dir string, stdin []byte, args ...string) (string, error) {
	c := exec.CommandContext(ctx, "git", append(append([]string{}, gitIdentity...), args...)...)
	c.Dir = dir
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// tail is the end of a command's output, for an error message.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}
