package browser

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-rod/rod/lib/launcher"
	"github.com/tofu-research/tofu/backend/sandbox"
)

// Chromium inside the sandbox (backend/sandbox): its own mount and PID namespaces, the places
// holding secrets not there, only its profile writable, every process of it dying with Tofu.
// It shares Tofu's network namespace: rod talks to it over loopback (CDP), the pages it shows
// are on loopback, and the hosts it reaches are decided by the dead proxy (web access off) and
// the host guard (on). Tofu's data folder is hidden but for the browser profile inside it.

// launchSandboxed starts Chromium with l's flags inside a copy of box and returns its DevTools
// URL and the process to kill (bubblewrap's: its namespace dies with it).
func launchSandboxed(ctx context.Context, l *launcher.Launcher, bin string, env []string, box sandbox.Boundary, profile string, workspaces []string) (string, *exec.Cmd, error) {
	tmp := filepath.Join(profile, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return "", nil, fmt.Errorf("the browser's temporary folder: %w", err)
	}
	box.Workspace, box.Temp, box.HostNetwork = profile, tmp, true
	box.Cache = filepath.Join(profile, "home", ".cache")
	// The workspaces of the sessions confined so far (the calling one among them) are shown
	// read-only at their paths, /tmp ones too (the sandbox's /tmp is its own).
	box.Writable, box.Expose = nil, workspaces
	box.Hidden = hideAround(box.Hidden, profile)
	cmd := exec.Command(bin, l.FormatArgs()...)
	cmd.Env = env
	if err := box.Wrap(cmd, "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"); err != nil {
		return "", nil, err
	}
	setGroup(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start Chromium in the sandbox: %w", err)
	}
	// Chromium says where it listens on stderr; its last lines say why when it does not.
	found := make(chan string, 1)
	var last []string
	go func() {
		defer close(found)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "DevTools listening on "); ok {
				found <- strings.TrimSpace(u)
				_, _ = io.Copy(io.Discard, stderr) // Chromium would block on a full pipe
				return
			}
			if last = append(last, line); len(last) > 5 {
				last = last[1:]
			}
		}
	}()
	select {
	case u := <-found:
		if u != "" {
			go func() { _ = cmd.Wait() }()
			return u, cmd, nil
		}
		_ = cmd.Wait()
		return "", nil, fmt.Errorf("Chromium ended in the sandbox before it listened: %s", strings.Join(last, "\n"))
	case <-ctx.Done():
		killAndWait(cmd.Process.Pid)
		_ = cmd.Wait()
		return "", nil, ctx.Err()
	}
}

// hideAround is hidden with every place holding keep replaced by what it holds but keep's
// way: the folder keep is in stays hidden, all but keep (Tofu's data folder, its database and
// command socket included, all but the browser profile).
func hideAround(hidden []string, keep string) []string {
	var out []string
	for _, h := range hidden {
		rel, err := filepath.Rel(h, keep)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			out = append(out, h)
			continue
		}
		if rel == "." {
			continue // keep itself: the sandbox writes there
		}
		next, _, _ := strings.Cut(rel, string(filepath.Separator))
		entries, _ := os.ReadDir(h)
		for _, e := range entries {
			if e.Name() != next {
				out = append(out, filepath.Join(h, e.Name()))
			}
		}
		out = append(out, hideAround([]string{filepath.Join(h, next)}, keep)...)
	}
	return out
}
