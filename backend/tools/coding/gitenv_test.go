package coding

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitHardened: commands run git without the repository's fsmonitor and hooks and without
// the user's global config, but with the user's identity.
func TestGitHardened(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_COUNT", "")
	marker := filepath.Join(home, "ran")
	evil := filepath.Join(home, "evil")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho \"$0\" >> "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	global := "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[core]\n\tpager = " + evil + "\n[alias]\n\tst = !" + evil + "\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t, map[string]string{"notes.txt": "a\n"})
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
	git("config", "core.fsmonitor", evil)
	hook := filepath.Join(ws, ".git", "hooks", "post-index-change")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n"+evil+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tb := NewToolbox(testOpts)
	run := NewRunCommand(testOpts, tb.Jobs())
	res := call(t, run, ws, `{"command":"git status --short && git diff --stat && git config user.name && git config core.pager"}`)
	mustContain(t, res.Text, "M notes.txt", "Ada Lovelace\ncat\n")
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("git ran configured programs: %s", b)
	}
	res = call(t, run, ws, `{"command":"git st; git -c user.name=x var GIT_AUTHOR_IDENT | cut -d' ' -f1"}`)
	mustContain(t, res.Text, "'st' is not a git command", "x\n")
	global = strings.TrimPrefix(tb.Jobs().git.env()[2], "GIT_CONFIG_GLOBAL=")
	tb.Close()
	if _, err := os.Stat(global); !os.IsNotExist(err) {
		t.Errorf("the clean global config %s outlived the toolbox: %v", global, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a configured program ran")
	}
}
