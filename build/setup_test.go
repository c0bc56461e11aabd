// Package build holds the scripts that set up, build and package Tofu; its tests check them.
package build

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeAptGet writes an apt-get that logs its arguments and fails with a held lock for its
// first `locked` calls, then with failWith (when not empty) or succeeds.
func fakeAptGet(t *testing.T, locked int, failWith string) (prog, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	prog = filepath.Join(dir, "apt-get")
	script := `#!/usr/bin/env bash
echo "$*" >>` + log + `
n=$(wc -l <` + log + `)
if [ "$n" -le ` + strconv.Itoa(locked) + ` ]; then
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (unattended-upgr)" >&2
  echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
  exit 100
fi
if [ -n "` + failWith + `" ]; then echo "` + failWith + `" >&2; exit 100; fi
`
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return prog, log
}

func runAptInstall(t *testing.T, prog string, pkgs ...string) (string, error) {
	cmd := exec.Command("./apt-install.sh", pkgs...)
	cmd.Env = append(os.Environ(), "APT_GET="+prog, "APT_WAIT_STEP=0.05")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A package manager already running (the automatic updates of a fresh laptop) makes setup wait
// and go on, instead of stopping with "Could not get lock".
func TestAptInstallWaitsForTheLock(t *testing.T) {
	prog, log := fakeAptGet(t, 2, "")
	out, err := runAptInstall(t, prog, "bubblewrap", "xvfb")
	if err != nil {
		t.Fatalf("apt-install failed while the lock was only held for a while: %v\n%s", err, out)
	}
	if strings.Count(out, "waiting for it to finish") != 1 || !strings.Contains(out, "unattended-upgr") {
		t.Errorf("the user is not told once who holds the lock:\n%s", out)
	}
	calls, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 4 {
		t.Fatalf("want update ×3 (2 locked) then install, got %d calls:\n%s", len(lines), calls)
	}
	last := lines[3]
	if !strings.Contains(last, "install") || !strings.Contains(last, "bubblewrap xvfb") || !strings.Contains(last, "DPkg::Lock::Timeout=") {
		t.Errorf("install call = %q, want the packages and dpkg's lock timeout", last)
	}
}

// Any other apt error stops setup at once, with apt's own words.
func TestAptInstallStopsOnOtherErrors(t *testing.T) {
	prog, log := fakeAptGet(t, 0, "E: Unable to locate package nosuch")
	out, err := runAptInstall(t, prog, "nosuch")
	if err == nil {
		t.Fatalf("apt-install succeeded though apt-get failed:\n%s", out)
	}
	if !strings.Contains(out, "Unable to locate package nosuch") || strings.Contains(out, "waiting") {
		t.Errorf("output = %q, want apt's error and no waiting", out)
	}
	if calls, _ := os.ReadFile(log); strings.Count(string(calls), "\n") != 1 {
		t.Errorf("apt-get was called again after a real error:\n%s", calls)
	}
}
