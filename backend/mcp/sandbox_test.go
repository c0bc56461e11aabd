package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
)

// TestServersRunInTheSandbox drives the real filesystem server, allowed a whole folder that
// holds a fake home, inside the sandbox: it writes in its cwd, but cannot read the home's
// hidden key nor write beside its cwd, and its /tmp is removed when it stops. The same
// server with "sandbox": false reads the key and writes outside, which shows the case is
// live (and is the escape hatch a person may choose).
func TestServersRunInTheSandbox(t *testing.T) {
	t.Parallel()
	sandboxtest.Require(t)
	// Outside /tmp, which the sandbox replaces: what it cannot reach is hidden by the
	// boundary, not missing.
	root, err := os.MkdirTemp("/var/tmp", "tofu-mcp-sandbox-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, cwd, outside := filepath.Join(root, "home"), filepath.Join(root, "cwd"), filepath.Join(root, "outside")
	for _, d := range []string{home + "/.ssh", cwd, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(home, ".ssh", "id_rsa")
	if err := os.WriteFile(key, []byte("TOFU-CANARY key"), 0o600); err != nil {
		t.Fatal(err)
	}
	box := &sandbox.Boundary{Hidden: []string{home + "/.ssh"}}
	off := false
	boxed, open := filesystem(t, root), filesystem(t, root)
	boxed.Cwd, open.Cwd, open.Sandbox = cwd, cwd, &off
	w := newWatched(t, Options{Sandbox: func() *sandbox.Boundary { return box }},
		map[string]config.MCPServer{"boxed": boxed, "open": open})
	w.until(t, "both servers", func(s map[string]State) bool { return connected("boxed", 5)(s) && connected("open", 5)(s) })
	reg := tools.NewRegistry()
	if _, err := w.Family(nil)(reg, session.Spec{}); err != nil {
		t.Fatal(err)
	}
	if r := call(t, reg, "mcp__boxed__read_text_file", map[string]any{"path": key}); !r.IsError || strings.Contains(r.Text, "TOFU-CANARY") {
		t.Fatalf("the sandboxed server read the hidden key: %q", r.Text)
	}
	if r := call(t, reg, "mcp__boxed__write_file", map[string]any{"path": filepath.Join(cwd, "made.txt"), "content": "in its cwd"}); r.IsError {
		t.Fatalf("the sandboxed server could not write in its cwd: %s", r.Text)
	}
	escaped := filepath.Join(outside, "escaped.txt")
	if r := call(t, reg, "mcp__boxed__write_file", map[string]any{"path": escaped, "content": "x"}); !r.IsError {
		t.Fatalf("the sandboxed server wrote outside its cwd: %s", r.Text)
	}
	if _, err := os.Stat(escaped); !os.IsNotExist(err) {
		t.Fatalf("a file was written outside: %v", err)
	}

	if r := call(t, reg, "mcp__open__read_text_file", map[string]any{"path": key}); r.IsError || !strings.Contains(r.Text, "TOFU-CANARY") {
		t.Fatalf(`the server with "sandbox": false did not read the key: %q`, r.Text)
	}
	if r := call(t, reg, "mcp__open__write_file", map[string]any{"path": escaped, "content": "x"}); r.IsError {
		t.Fatalf(`the server with "sandbox": false could not write outside: %s`, r.Text)
	}

	srv, _ := w.server("boxed")
	c, _ := srv.connected()
	if c.proc.temp == nil {
		t.Fatal("the server has no /tmp of its own")
	}
	tempDir, _ := c.proc.temp.Path()
	w.Close()
	if _, err := os.Stat(tempDir); !os.IsNotExist(err) {
		t.Fatalf("the server's /tmp %s outlived it: %v", tempDir, err)
	}
}
