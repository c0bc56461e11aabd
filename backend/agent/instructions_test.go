package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstructionsFromRootToWorkspace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := t.TempDir()
	ws := filepath.Join(root, "pkg", "sub")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, ".tofu", "rules"), 0o755)
	write := func(p, s string) { os.WriteFile(p, []byte(s), 0o644) }
	write(filepath.Join(cfg, "AGENTS.md"), "global rule")
	write(filepath.Join(root, "AGENTS.md"), "root rule")
	write(filepath.Join(root, ".tofu", "rules", "b.md"), "rule b")
	write(filepath.Join(root, ".tofu", "rules", "a.md"), "rule a")
	write(filepath.Join(root, "pkg", "CLAUDE.md"), "pkg rule")
	write(filepath.Join(ws, "AGENTS.md"), "  ")
	got := Instructions(ws, cfg, nil)
	order := []string{"global rule", "root rule", "rule a", "rule b", "pkg rule"}
	last := -1
	for _, s := range order {
		i := strings.Index(got, s)
		if i <= last {
			t.Fatalf("%q missing or out of order in:\n%s", s, got)
		}
		last = i
	}
	// Outside a repository only the workspace itself is read.
	lone := t.TempDir()
	write(filepath.Join(lone, "AGENTS.md"), "lone rule")
	if got := Instructions(lone, "", nil); !strings.Contains(got, "lone rule") {
		t.Fatalf("workspace rule missing: %q", got)
	}
}

// A cloned repository's instruction files linked to a key or a file outside are read before
// any call is judged, into the system prompt: they are skipped; a link that stays inside is
// followed (CLAUDE.md → AGENTS.md is common).
func TestInstructionFilesLinkedOutsideAreSkipped(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "id_rsa"), []byte("PRIVATE KEY"), 0o600)
	os.WriteFile(filepath.Join(outside, "notes.md"), []byte("outside notes"), 0o644)
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	ws := filepath.Join(repo, "ws")
	os.MkdirAll(filepath.Join(ws, ".tofu", "rules"), 0o755)
	os.MkdirAll(filepath.Join(ws, "docs"), 0o755)
	os.WriteFile(filepath.Join(ws, "docs", "agents.md"), []byte("inside rule"), 0o644)
	os.WriteFile(filepath.Join(repo, "up.md"), []byte("repository file"), 0o644)
	os.Symlink(filepath.Join(outside, "id_rsa"), filepath.Join(repo, "AGENTS.md")) // root level, out
	os.Symlink("docs/agents.md", filepath.Join(ws, "AGENTS.md"))                   // inside: followed
	os.Symlink("../up.md", filepath.Join(ws, "CLAUDE.md"))                         // out of the workspace
	os.Symlink(filepath.Join(outside, "notes.md"), filepath.Join(ws, ".tofu", "rules", "a.md"))
	os.Symlink("../../CLAUDE.md", filepath.Join(ws, ".tofu", "rules", "b.md")) // inside, then out
	os.Symlink(filepath.Join(outside), filepath.Join(repo, ".tofu"))           // a folder out
	mkfifo(filepath.Join(ws, ".tofu", "rules", "c.md"))                        // would block
	os.WriteFile(filepath.Join(ws, ".tofu", "rules", "d.md"), []byte("secret-looking rule"), 0o644)
	secret := func(p string) bool { return strings.HasSuffix(p, "d.md") }
	got := Instructions(ws, "", secret)
	for _, leak := range []string{"PRIVATE KEY", "outside notes", "repository file", "secret-looking rule"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q read into the instructions:\n%s", leak, got)
		}
	}
	if !strings.Contains(got, "inside rule") {
		t.Errorf("a link inside the workspace was not followed:\n%s", got)
	}
}
