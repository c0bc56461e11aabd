package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestAgentEndToEnd drives the coding agent in the real front end (frontend/e2e/agent.e2e.mjs)
// against `tofu serve` and a model scripted to read notes.txt, edit it, and finish: the browser
// sets the workspace, approves the edit on its card, sees the diff, and reloads. Like
// TestEndToEnd it runs when TOFU_E2E=1, where a missing piece is a failure, not a skip.
func TestAgentEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	ws := t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("# Notes\ntofu is made of soy\nand water\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// The model's step is the number of tool results since the last user message. "again"
	// asks for a second edit (the browser stops it while it waits, continues, and denies it).
	model := scripted.New(t, scripted.DemoModel())
	args := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		n := turnStep(r)
		edit := func(id, from, to string) []llm.ToolCall {
			return []llm.ToolCall{{ID: id, Name: "edit_files", Arguments: args(map[string]any{"edits": []any{map[string]any{
				"path": "notes.txt", "old_string": from, "new_string": to}}})}}
		}
		// Autonomous mode (the last step): the phase shows in the system prompt and the brief.
		if system := r.Messages[0].Content; strings.Contains(system, "You are the planner") {
			return scripted.Reply{Text: "1. Read notes.txt\n2. Confirm it is right", TokenDelay: 10 * time.Millisecond, Chunks: 3}
		} else if strings.Contains(system, "You are the critic") {
			return scripted.Reply{Text: "Checked notes.txt: it says soybeans.\nVERDICT: STOP", TokenDelay: 10 * time.Millisecond, Chunks: 3}
		}
		if strings.HasPrefix(scripted.LastUser(r), "Plan:") {
			return scripted.Reply{Text: "The notes are right; nothing to change.", TokenDelay: 10 * time.Millisecond, Chunks: 3}
		}
		if strings.Contains(scripted.LastUser(r), "again") {
			if n == 0 {
				return scripted.Reply{Text: "Splitting the word.", ToolCalls: edit("call_again", "soybeans", "soy beans")}
			}
			return scripted.Reply{Text: "Understood, I left `notes.txt` as it is."}
		}
		switch n {
		case 0:
			return scripted.Reply{Text: "Let me look at the file first.", TokenDelay: 20 * time.Millisecond, Chunks: 4,
				ToolCalls: []llm.ToolCall{{ID: "call_read", Name: "read_files", Arguments: args(map[string]any{"reads": []any{map[string]any{"path": "notes.txt"}}})}}}
		case 1:
			return scripted.Reply{Text: "It should say soybeans. Editing it.", TokenDelay: 20 * time.Millisecond, Chunks: 4,
				ToolCalls: edit("call_edit", "tofu is made of soy\n", "tofu is made of soybeans\n")}
		}
		return scripted.Reply{Text: "Done: `notes.txt` now says **tofu is made of soybeans**.", TokenDelay: 20 * time.Millisecond, Chunks: 6}
	})
	isolate(t, model.URL)

	st, url, stop := serveE2E(t, root)

	env := []string{"TOFU_E2E_WORKSPACE=" + ws}
	runBrowser(t, root, url, "agent.e2e.mjs", "agent-e2e.png", env...)

	stop()
	// The second edit was denied: the first one is what the file holds.
	if b, _ := os.ReadFile(notes); string(b) != "# Notes\ntofu is made of soybeans\nand water\n" {
		t.Fatalf("notes.txt = %q", b)
	}
	list, _ := st.Sessions()
	if len(list) == 0 || list[0].Workspace != ws {
		t.Fatalf("sessions: %+v", list)
	}
	evs, _ := st.Events(list[0].ID)
	var kinds []string
	var approvals []store.Approval
	for _, ev := range evs {
		if ev.Type == store.EventUser && len(kinds) > 0 {
			break // the first turn; the second is checked below
		}
		switch ev.Type {
		case store.EventUsage, store.EventModelCall:
			continue
		case store.EventApproval:
			var a store.Approval
			ev.Decode(&a)
			approvals = append(approvals, a)
		}
		kinds = append(kinds, string(ev.Type))
	}
	if got := strings.Join(kinds, ","); got != "user,environment,assistant,tool_result,assistant,approval,approval,tool_start,tool_result,assistant,turn_end" {
		t.Fatalf("recorded events: %s", got)
	}
	if approvals[1].Decision != "allow" || approvals[1].By != "user" || approvals[1].Subject != notes {
		t.Fatalf("approvals: %+v", approvals)
	}
	// The second turn: asked, stopped (the question expired), continued, asked again, denied.
	var second []string
	for _, ev := range evs {
		if ev.Type == store.EventApproval {
			var a store.Approval
			ev.Decode(&a)
			if a.CallID == "call_again" {
				second = append(second, string(a.Decision)+"/"+string(a.By))
			}
		}
	}
	if got := strings.Join(second, ","); got != "/,/,deny/user" {
		t.Fatalf("approvals of the second edit: %s", got)
	}
	// The third turn ran in autonomous mode: planner, worker, critic's STOP.
	if list[0].Mode != "autonomous" {
		t.Fatalf("mode = %q", list[0].Mode)
	}
	var phases []string
	for _, ev := range evs {
		var p store.Phase
		if ev.Type == store.EventPhase && ev.Decode(&p) == nil {
			phases = append(phases, string(p.Role)+":"+string(p.State)+string(p.Verdict))
		}
	}
	if got := strings.Join(phases, " "); got != "planner:start planner:end worker:start worker:end critic:start critic:endSTOP" {
		t.Fatalf("phases: %s", got)
	}
}
