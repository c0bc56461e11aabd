package session

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/sandbox/sandboxtest"
)

// TestGlobalSkillScriptRunsInTheSandbox: a turn's commands get a boundary that shows the
// global skills folder, inside Tofu's config folder (a place the sandbox hides), read-only:
// a skill's script runs there, Tofu's keys beside it stay hidden, and the script cannot
// write outside the workspace. Without the skills folder shown, the script is not found.
func TestGlobalSkillScriptRunsInTheSandbox(t *testing.T) {
	root := sandboxtest.Dir(t) // outside the /tmp a sandbox replaces
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	skills := filepath.Join(home, ".config", "tofu", "skills")
	script := filepath.Join(skills, "probe", "scripts", "probe.sh")
	secrets := filepath.Join(home, ".config", "tofu", "secrets.json")
	escaped := filepath.Join(root, "escaped.txt")
	for _, d := range []string{filepath.Dir(script), ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{secrets: "TOFU-CANARY-secrets",
		script: "echo skill ran; cat " + secrets + "; echo x > " + escaped + " || echo write refused\n"} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(b *sandbox.Boundary) string {
		t.Helper()
		var temp sandbox.Temp
		defer temp.Remove()
		tmp, err := temp.Path()
		if err != nil {
			t.Fatal(err)
		}
		box := b.Around(ws, tmp)
		cmd := exec.Command("sh", script)
		cmd.Dir = ws
		if err := box.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		_ = cmd.Run()
		return out.String()
	}
	out := run(turnSandbox(config.Config{}, skills))
	if !strings.Contains(out, "skill ran") || strings.Contains(out, "TOFU-CANARY") || !strings.Contains(out, "write refused") {
		t.Fatalf("the skill's script in the sandbox: %q", out)
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Fatal("the skill's script wrote outside the workspace")
	}
	if out := run(turnSandbox(config.Config{}, "")); strings.Contains(out, "skill ran") {
		t.Fatalf("the skills folder was shown without being asked for: %q", out)
	}
}
