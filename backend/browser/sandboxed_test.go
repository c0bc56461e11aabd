package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
)

// TestChromiumRunsInTheSandbox: in the sandbox, a hidden place is empty to Chromium even where
// the file gate lets a page load it (the kernel, not the gate, keeps it), Tofu's data folder
// is hidden but for the profile, pages on loopback and in the workspace still load, and
// Chromium is in a PID namespace of its own.
func TestChromiumRunsInTheSandbox(t *testing.T) {
	sandboxtest.Require(t)
	b := newBoundary(t)
	data := filepath.Join(filepath.Dir(b.ws), "data")
	write(t, filepath.Join(b.outside, "hidden.html"), "<p>"+secretText+"</p>")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(data, "db.html"), "<p>"+secretText+"-db</p>")
	m := New(Options{ProfileDir: filepath.Join(data, "browser"), Idle: 1 << 40, Sandbox: func() *sandbox.Boundary {
		return &sandbox.Boundary{Hidden: []string{b.outside, data}}
	}})
	t.Cleanup(m.Close)
	ctx := testCtx(t)
	m.Confine("s", b.ws, func(string) (bool, string) { return true, "" }) // the gate lets all through
	for _, hidden := range []string{filepath.Join(b.outside, "hidden.html"), filepath.Join(data, "db.html")} {
		rep, err := m.Navigate(ctx, "s", "file://"+hidden)
		if err == nil && strings.Contains(rep.Text, secretText) {
			t.Fatalf("the sandboxed browser showed %s:\n%s", hidden, rep.Text)
		}
	}
	if rep, err := m.Navigate(ctx, "s", "file://"+b.ws+"/inside.html"); err != nil || !strings.Contains(rep.Text, "INSIDE-PAGE") {
		t.Fatalf("a workspace page in the sandbox: %v\n%s", err, rep.Text)
	}
	if rep, err := m.Navigate(ctx, "s", serveHTML(t, "<p>LOOPBACK-PAGE</p>")); err != nil || !strings.Contains(rep.Text, "LOOPBACK-PAGE") {
		t.Fatalf("a loopback page in the sandbox: %v\n%s", err, rep.Text)
	}
	m.mu.Lock()
	pid, sandboxed := m.pid, m.sandboxed
	m.mu.Unlock()
	if !sandboxed {
		t.Fatal("the browser did not start in the sandbox")
	}
	// bubblewrap's child is in a PID namespace of its own: not Tofu's.
	out, err := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output()
	if err != nil {
		t.Fatalf("bubblewrap (%d) has no child: %v", pid, err)
	}
	child := strings.Fields(string(out))[0]
	mine, _ := os.Readlink("/proc/self/ns/pid")
	theirs, err := os.Readlink("/proc/" + child + "/ns/pid")
	if err != nil || theirs == mine {
		t.Fatalf("Chromium's PID namespace %q (%v), Tofu's %q", theirs, err, mine)
	}
}
