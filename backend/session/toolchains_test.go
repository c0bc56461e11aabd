package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestToolchainVersions: the versions of the toolchains on PATH — Go's from its GOROOT's
// VERSION file (the go command is never run), the others from their own output (stderr too) —
// asked once per program file and again when the file changes; a toolchain inside the
// workspace is never run, and one that fails is listed without a version. It sets PATH, so
// it does not run in parallel.
func TestToolchainVersions(t *testing.T) {
	goroot, ws := t.TempDir(), t.TempDir()
	bin := filepath.Join(goroot, "bin")
	runs := filepath.Join(t.TempDir(), "runs")
	script := func(dir, name, body string) {
		t.Helper()
		os.MkdirAll(dir, 0o755)
		sh := "#!/bin/sh\necho " + name + " >> " + runs + "\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(sh), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script(bin, "go", "echo go version go0.0.1")
	if err := os.WriteFile(filepath.Join(goroot, "VERSION"), []byte("go1.99.3\ntime 2026-08-28T16:20:06Z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script(bin, "node", `[ "$PWD" = / ] && echo v30.1.0`)
	script(bin, "gcc", "echo 14.2.0 >&2")
	script(bin, "python3", "exit 3")
	script(bin, "java", `echo 'openjdk version "21.0.2"'`)
	wsBin := filepath.Join(ws, "bin")
	script(wsBin, "cargo", "echo cargo 9.9.9")
	script(wsBin, "npm", "echo 10.0.0")
	t.Setenv("PATH", wsBin+":"+bin)

	v := newToolVersions()
	ask := func() map[string]string {
		return v.versions(context.Background(), ws, []string{"git", "go", "node", "gcc", "java", "python3", "cargo", "npm"})
	}
	got := ask()
	want := map[string]string{"go": "1.99", "node": "30.1", "gcc": "14.2"}
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
	if b, _ := os.ReadFile(runs); string(b) == "" || strings.Contains(string(b), "go") || strings.Contains(string(b), "java") || strings.Contains(string(b), "cargo") {
		t.Fatalf("programs run: %q; want node, gcc and python3 only (go is read, java and cargo leave files behind, the workspace's are never run)", b)
	}
	if n := count(); n != 3 {
		t.Fatalf("%d programs ran, want node, gcc and python3", n)
	}
	ask()
	if n := count(); n != 3 {
		t.Fatalf("unchanged programs ran again: %d runs", n)
	}
	script(bin, "node", "echo v31.0.0 # upgraded")
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(bin, "node"), later, later)
	if got := ask(); got["node"] != "31.0" || count() != 4 {
		t.Fatalf("after node changed: %v, %d runs", got, count())
	}

	// The environment block names them.
	_, facts := probeEnvironment(context.Background(), ws, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), true, v)
	if !strings.Contains(facts, "Installed: go 1.99, python3, node 31.0, npm, cargo, java, gcc 14.2.") {
		t.Fatalf("environment: %s", facts)
	}

	// One that answers too late (a busy machine) is listed without its version this time and
	// asked again the next: a slow start is not remembered as "no version". (PATH holds only the
	// test's programs: sleep is named by its path.)
	slow := filepath.Join(t.TempDir(), "slow")
	if err := os.WriteFile(slow, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	script(bin, "node", "[ -e "+slow+" ] && exec /bin/sleep 30\necho v32.0.0")
	later = later.Add(time.Minute)
	os.Chtimes(filepath.Join(bin, "node"), later, later)
	v.timeout = 100 * time.Millisecond
	if got := ask(); got["node"] != "" || got["gcc"] != "14.2" {
		t.Fatalf("with node answering late: %v", got)
	}
	os.Remove(slow)
	v.timeout = versionTimeout
	if got := ask(); got["node"] != "32.0" {
		t.Fatalf("node asked again after a late answer: %v, want node 32.0", got)
	}
}

// Every runner of a process asks a toolchain its version once: an eval's tasks, the attack
// suite's ~1,000 runs and a command's engine built again each made a runner that asked anew
// (a Python behind pyenv's shim: ~30 process starts each time).
func TestRunnersShareToolchainVersions(t *testing.T) {
	if a, b := New(Options{}), New(Options{}); a.versions != b.versions {
		t.Fatal("two runners keep two caches of toolchain versions")
	}
}
