//go:build unix

package browser

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMissingChromiumSaysHowToInstall(t *testing.T) {
	m := New(Options{ProfileDir: t.TempDir(), Bin: filepath.Join(t.TempDir(), "no-chromium")})
	defer m.Close()
	_, err := m.Navigate(testCtx(t), "s", "about:blank")
	if !errors.Is(err, ErrNoChromium) || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Fatalf("got %v, want the install command", err)
	}
}

func TestWebAccessOffBlocksOtherHosts(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	// The page itself asks for a remote script: with web access off it never connects.
	_, err := m.Navigate(ctx, "s", "http://192.0.2.1/")
	if err == nil || !strings.Contains(err.Error(), "ERR_PROXY_CONNECTION_FAILED") {
		t.Fatalf("a remote page: %v, want a refused connection through the dead proxy", err)
	}
	if _, err := m.Navigate(ctx, "s", sites(t)+"/slow/index.html"); err != nil {
		t.Fatalf("a loopback page with web access off: %v", err)
	}
}

func TestCrashedPageAndBrowserStartAfresh(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	base := sites(t)
	if _, err := m.Navigate(ctx, "s", base+"/slow/index.html"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Navigate(ctx, "s", "chrome://crash"); err == nil {
		t.Fatal("a crashing page reported no error")
	}
	rep, err := m.Navigate(ctx, "s", base+"/tabs/index.html")
	if err != nil {
		t.Fatalf("after a page crash: %v", err)
	}
	mustContain(t, rep.Text, "Open the second page")

	m.mu.Lock()
	pid := m.pid
	m.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, err = m.Snapshot(ctx, "s", 0)
	if err == nil {
		t.Fatal("a dead browser reported no error")
	}
	mustContain(t, err.Error(), "fresh")
	rep, err = m.Navigate(ctx, "s", base+"/tabs/index.html")
	if err != nil {
		t.Fatalf("after the browser died: %v", err)
	}
	mustContain(t, rep.Text, "Open the second page")
}

func TestIdleBrowserCloses(t *testing.T) {
	m := New(Options{ProfileDir: filepath.Join(t.TempDir(), "profile"), Idle: 300 * time.Millisecond})
	defer m.Close()
	if _, err := m.Navigate(testCtx(t), "s", sites(t)+"/slow/index.html"); err != nil {
		t.Fatal(err)
	}
	if m.StartTime() <= 0 {
		t.Fatal("no start time recorded")
	}
	deadline := time.Now().Add(time.Minute)
	for m.Running() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if m.Running() {
		t.Fatal("the idle browser is still running")
	}
	if tabs := m.Tabs(testCtx(t), "s"); len(tabs) != 0 {
		t.Fatalf("tabs of a closed browser: %+v", tabs)
	}
	// The next use starts it again, with the same profile.
	if _, err := m.Navigate(testCtx(t), "s", sites(t)+"/slow/index.html"); err != nil {
		t.Fatal(err)
	}
	if err := m.ClearData(); err != nil {
		t.Fatal(err)
	}
	if m.Running() {
		t.Fatal("clearing the data left the browser running")
	}
}

// TestClosedBrowserLeavesNothingInTmp: closed, Chromium exits by itself before its group is
// killed, and so removes the folder of its singleton socket it made in $TMPDIR (killed at
// once, it left one in /tmp at every close).
func TestClosedBrowserLeavesNothingInTmp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	m := newManager(t)
	if _, err := m.Navigate(testCtx(t), "s", sites(t)+"/slow/index.html"); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "org.chromium.*")); len(left) == 0 {
		t.Fatal("Chromium made no singleton folder in $TMPDIR: the test no longer sees what it checks")
	}
	m.Close()
	if left, _ := filepath.Glob(filepath.Join(tmp, "org.chromium.*")); len(left) != 0 {
		t.Fatalf("the closed browser left %v", left)
	}
}
