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
	got := Instructions(ws, cfg)
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
	if got := Instructions(lone, ""); !strings.Contains(got, "lone rule") {
		t.Fatalf("workspace rule missing: %q", got)
	}
}
