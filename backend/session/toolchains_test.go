package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestToolchainVersions: the versions of the toolchains on PATH, read from their own output
// (java's on stderr), asked once per program file and again when the file changes; a
// toolchain inside the workspace is never run, and one that fails is listed without a version.
// It sets PATH, so it does not run in parallel.
func TestToolchainVersions(t *testing.T) {
	bin, ws := t.TempDir(), t.TempDir()
	runs := filepath.Join(t.TempDir(), "runs")
	script := func(dir, name, body string) {
		t.Helper()
		sh := "#!/bin/sh\necho " + name + " >> " + runs + "\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(sh), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script(bin, "go", `[ "$GOTOOLCHAIN" = local ] && [ "$PWD" = / ] && echo "go version go1.99.3 linux/amd64"`)
	script(bin, "node", "echo v30.1.0")
	script(bin, "java", `echo 'openjdk version "21.0.2" 2024-01-16' >&2`)
	script(bin, "python3", "exit 3")
	wsBin := filepath.Join(ws, "bin")
	os.Mkdir(wsBin, 0o755)
	script(wsBin, "cargo", "echo cargo 9.9.9")
	t.Setenv("PATH", bin+":"+wsBin)

	v := newToolVersions()
	ask := func() map[string]string {
		return v.versions(context.Background(), ws, []string{"git", "go", "node", "java", "python3", "cargo"})
	}
	got := ask()
	want := map[string]string{"go": "1.99.3", "node": "30.1.0", "java": "21.0.2"}
	if len(got) != len(want) {
		t.Fatalf("versions %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	count := func() int {
		b, _ := os.ReadFile(runs)
		return strings.Count(string(b), "\n")
	}
	if n := count(); n != 4 {
		t.Fatalf("%d programs ran, want go, node, java and python3 (not the workspace's cargo)", n)
	}
	ask()
	if n := count(); n != 4 {
		t.Fatalf("unchanged programs ran again: %d runs", n)
	}
	script(bin, "node", "echo v31.0.0 # upgraded")
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(bin, "node"), later, later)
	if got := ask(); got["node"] != "31.0.0" || count() != 5 {
		t.Fatalf("after node changed: %v, %d runs", got, count())
	}

	// The environment block names them.
	_, facts := probeEnvironment(context.Background(), ws, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), true, v)
	if !strings.Contains(facts, "go 1.99.3, python3, node 31.0.0") || !strings.Contains(facts, "java 21.0.2") {
		t.Fatalf("environment: %s", facts)
	}
}
