package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverAndLoad(t *testing.T) {
	t.Parallel()
	ws, global := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".tofu/skills/pdf-forms/SKILL.md"), "---\nname: pdf-forms\ndescription: Fill PDF forms.\n---\n# Filling forms\nRun scripts/fill.py.\n")
	write(t, filepath.Join(ws, ".tofu/skills/pdf-forms/scripts/fill.py"), "print('never run at discovery')\n")
	write(t, filepath.Join(ws, ".claude/skills/changelog/SKILL.md"), "---\ndescription: \"Write the changelog: one line per change.\"\n---\nBody\n")
	write(t, filepath.Join(global, "pdf-forms/SKILL.md"), "---\nname: pdf-forms\ndescription: the global one\n---\nhidden by the workspace's\n")
	write(t, filepath.Join(global, "needs-tools/SKILL.md"), "---\nname: needs-tools\ndescription: d\nrequires_bins: [surely-not-a-program-xyz]\nrequires_env:\n  - TOFU_SKILL_TEST_UNSET\nos: [plan9]\n---\n")
	write(t, filepath.Join(global, "no-description/SKILL.md"), "---\nname: x\n---\nbody\n")
	write(t, filepath.Join(global, "broken/SKILL.md"), "no front matter")
	outside := t.TempDir()
	write(t, filepath.Join(outside, "SKILL.md"), "---\nname: planted\ndescription: TOFU-CANARY secret\n---\nsecret\n")
	if err := os.MkdirAll(filepath.Join(ws, ".tofu/skills/planted"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "SKILL.md"), filepath.Join(ws, ".tofu/skills/planted/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, ".claude/skills/linked-dir")); err != nil {
		t.Fatal(err)
	}
	got := Discover(ws, global) // the two links leading outside the workspace are left out
	var names []string
	for _, s := range got {
		names = append(names, s.Name+"@"+filepath.Base(s.Source))
	}
	if strings.Join(names, " ") != "changelog@skills needs-tools@"+filepath.Base(global)+" pdf-forms@skills" {
		t.Fatalf("discovered %v", names)
	}
	if got[0].Source != filepath.Join(ws, ".claude/skills") || got[2].Source != filepath.Join(ws, ".tofu/skills") {
		t.Fatalf("sources: %+v", got)
	}
	if m := got[1].Missing; !strings.Contains(m, "surely-not-a-program-xyz") || !strings.Contains(m, "$TOFU_SKILL_TEST_UNSET") || !strings.Contains(m, "plan9") {
		t.Fatalf("missing: %q", m)
	}
	prompt := Prompt(got)
	if !strings.Contains(prompt, "- changelog: Write the changelog: one line per change.") || !strings.Contains(prompt, "- pdf-forms: Fill PDF forms.") || strings.Contains(prompt, "needs-tools") {
		t.Fatalf("prompt:\n%s", prompt)
	}
	reg := tools.NewRegistry(Tool(got, global))
	run := func(args string) tools.Result {
		res, err := reg.Run(context.Background(), tools.Call{Name: "skill", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(`{"name":"pdf-forms"}`)
	if res.IsError || !strings.Contains(res.Text, "# Filling forms") || !strings.Contains(res.Text, filepath.Join("scripts", "fill.py")) || strings.Contains(res.Text, "description:") {
		t.Fatalf("body: %+v", res)
	}
	if res := run(`{"name":"needs-tools"}`); !res.IsError || !strings.Contains(res.Text, "cannot be used here") {
		t.Fatalf("unusable skill: %+v", res)
	}
	if res := run(`{"name":"nope"}`); !res.IsError {
		t.Fatalf("unknown skill: %+v", res)
	}
	acc, _ := reg.Access(tools.Call{Name: "skill", Arguments: json.RawMessage(`{"name":"pdf-forms"}`)})
	if len(acc) != 1 || acc[0].Kind != tools.AccessRead || acc[0].Path != filepath.Join(ws, ".tofu/skills/pdf-forms/SKILL.md") {
		t.Fatalf("access %+v", acc)
	}
	if acc, _ := reg.Access(tools.Call{Name: "skill", Arguments: json.RawMessage(`{"name":"needs-tools"}`)}); len(acc) != 0 {
		t.Fatalf("a global skill is an access: %+v", acc)
	}
	if Prompt(nil) != "" {
		t.Fatal("a prompt without skills")
	}
}
