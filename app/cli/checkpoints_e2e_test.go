package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestCheckpointsEndToEnd drives "Undo changes since this message" in headless Chromium against
// `tofu serve` (frontend/e2e/checkpoints.e2e.mjs): refused with a diff while a file differs from
// what the agent left, then confirmed with the diffs, and the files are back. Screenshots:
// build/test-shots/undo-changes.png (the confirmation) and undo-refused.png.
func TestCheckpointsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("# Notes\ntofu is made of soy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := scripted.New(t, scripted.DemoModel())
	args := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		switch toolStep(r) {
		case 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "e1", Name: "edit_files", Arguments: args(map[string]any{"edits": []any{map[string]any{
				"path": "notes.txt", "old_string": "made of soy", "new_string": "made of soybeans"}}})}}}
		case 1:
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "w1", Name: "write_file", Arguments: args(map[string]any{"path": "plan.md", "content": "# Plan\n1. soybeans\n"})}}}
		}
		return scripted.Reply{Text: "Done with the notes and the plan."}
	})
	isolate(t, model.URL)
	st, url, stop := serveE2E(t, root)
	refused := shotPath(root, "undo-refused.png")
	runBrowser(t, root, url, "checkpoints.e2e.mjs", "undo-changes.png", "TOFU_E2E_WORKSPACE="+ws, "TOFU_E2E_REFUSED_SHOT="+refused)
	stop()

	if _, err := os.Stat(filepath.Join(ws, "plan.md")); !os.IsNotExist(err) {
		t.Fatalf("plan.md is still there: %v", err)
	}
	list, _ := st.Sessions()
	if len(list) != 1 {
		t.Fatalf("%d conversations", len(list))
	}
	evs, _ := st.Events(list[0].ID)
	restores := 0
	for _, ev := range evs {
		if ev.Type == store.EventCheckpointRestore {
			restores++
		}
	}
	if restores != 1 {
		t.Fatalf("%d checkpoint_restore events, want the one confirmed undo", restores)
	}
}
