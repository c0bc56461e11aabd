package cli

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tofu skills install puts a zipped skill in the global folder; tofu skills list shows it
// with the workspace's.
func TestSkillsInstallAndList(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("changelog/SKILL.md")
	w.Write([]byte("---\nname: changelog\ndescription: Write the changelog.\n---\nOne line per change.\n"))
	zw.Close()
	zipPath := filepath.Join(t.TempDir(), "changelog.zip")
	if err := os.WriteFile(zipPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".tofu/skills/release"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".tofu/skills/release/SKILL.md"), []byte("---\nname: release\ndescription: Cut a release.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		return execute(t, newSkillsCmd(), args...)
	}
	if out := run("install", zipPath); !strings.Contains(out, "Installed changelog") {
		t.Fatalf("install: %s", out)
	}
	out := run("list", "--cwd", ws)
	if !strings.Contains(out, "changelog  Write the changelog.") || !strings.Contains(out, "release  Cut a release.") {
		t.Fatalf("list:\n%s", out)
	}
}

// tofu skills add DIR installs a skill folder under the zip's rules: a folder holding a link
// to a file outside is refused and nothing is installed.
func TestSkillsAddFolder(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	src := filepath.Join(t.TempDir(), "lint")
	if err := os.MkdirAll(filepath.Join(src, "references"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "SKILL.md"), []byte("---\nname: lint\ndescription: Run the linters.\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := newSkillsCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		err := cmd.Execute()
		return out.String(), err
	}
	if out, err := run("add", src); err != nil || !strings.Contains(out, "Installed lint") {
		t.Fatalf("add: %s %v", out, err)
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("TOFU-CANARY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(src, "references", "notes.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(cfg, "tofu", "skills")); err != nil {
		t.Fatal(err)
	}
	if out, err := run("add", src); err == nil || !strings.Contains(err.Error(), "link") {
		t.Fatalf("a folder with a link outside was installed: %s %v", out, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(cfg, "tofu", "skills")); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}
