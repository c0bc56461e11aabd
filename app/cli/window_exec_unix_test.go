//go:build unix

package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// `tofu` without a command becomes the window program beside it: the same process (its pid),
// no arguments, the environment kept, and the window's exit status is tofu's. Without the
// program it says which file is missing. The test binary plays `tofu` (copied into a folder
// of its own, since the program is looked for beside the real file) and a shell script plays
// the window.
func TestWindowReplacesTofu(t *testing.T) {
	if os.Getenv("TOFU_WINDOW_EXEC_HELPER") != "" {
		os.Args = []string{"tofu"}
		os.Exit(Execute(os.DirFS("."))) // exec leaves no time for a TempDir's clean-up
	}
	install := t.TempDir()
	tofu := filepath.Join(install, "tofu")
	if err := os.Link(os.Args[0], tofu); err != nil {
		copyFile(t, os.Args[0], tofu) // another file system
	}
	out := filepath.Join(t.TempDir(), "window.out")
	window := filepath.Join(install, windowProgram)
	script := "#!/bin/sh\necho \"$$ $# $TOFU_PROBE\" > \"$TOFU_WINDOW_OUT\"\nexit 7\n"
	if err := os.WriteFile(window, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func() (*exec.Cmd, string, error) {
		cmd := exec.Command(tofu, "-test.run=^TestWindowReplacesTofu$")
		cmd.Env = append(os.Environ(), "TOFU_WINDOW_EXEC_HELPER=1", "DISPLAY=:9", "TOFU_PROBE=kept", "TOFU_WINDOW_OUT="+out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		return cmd, stderr.String(), err
	}

	cmd, stderr, err := run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("tofu: %v, want the window's exit status 7\n%s", err, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the window program did not run: %v\n%s", err, stderr)
	}
	if want := strconv.Itoa(cmd.Process.Pid) + " 0 kept\n"; string(got) != want {
		t.Fatalf("the window saw %q (pid, arguments, environment), want %q", got, want)
	}

	if err := os.Remove(window); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = run()
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("tofu without the window program: %v, want exit status 1", err)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], window) {
		t.Fatalf("tofu without the window program said %q: want one line naming %s", stderr, window)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	outf, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(outf, in); err != nil {
		t.Fatal(err)
	}
	if err := outf.Close(); err != nil {
		t.Fatal(err)
	}
}
