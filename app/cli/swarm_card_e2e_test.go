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

// TestSwarmCardEndToEnd drives the swarm card in the real front end (frontend/e2e/swarm.e2e.mjs)
// against `tofu serve` and a model scripted to spawn three agents: a researcher and a coder,
// and a writer on both. The coder's edit asks for approval: the card opens the coder's
// session, whose approval card names the agent, and the browser allows it there. Then every
// row is done with its role and dependencies, and a click opens a child session. Like
// TestEndToEnd it runs when TOFU_E2E=1, where a missing piece is a failure, not a skip.
func TestSwarmCardEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	ws := t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("tofu is made of soy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	graph := `{"agents":[{"objective":"find what tofu is made of","role":"researcher"},` +
		`{"objective":"fix the spelling in notes.txt","role":"coder"},` +
		`{"objective":"write the summary","role":"writer","depends_on":[0,1]}]}`
	args := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	model := scripted.New(t, scripted.DemoModel())
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		first, results := "", 0
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser && first == "" {
				first = m.Content
			}
			if m.Role == llm.RoleTool {
				results++
			}
		}
		slow := func(text string) scripted.Reply {
			return scripted.Reply{Text: text, Chunks: 4, TokenDelay: 20 * time.Millisecond}
		}
		switch {
		case strings.HasPrefix(first, "You are agent 0 "):
			return slow("Tofu is made of soybeans, water and a coagulant.")
		case strings.HasPrefix(first, "You are agent 1 "):
			if results == 0 {
				return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "call_fix", Name: "edit_files", Arguments: args(map[string]any{
					"edits": []any{map[string]any{"path": "notes.txt", "old_string": "soy\n", "new_string": "soybeans\n"}}})}}}
			}
			return slow("Changed notes.txt: soy → soybeans.")
		case strings.HasPrefix(first, "You are agent 2 "):
			return slow("Summary: tofu is soybeans; notes.txt now says so.")
		case strings.HasPrefix(scripted.LastUser(r), "You are the master"):
			return slow("Synthesis: tofu is made of soybeans, and the notes say so now.")
		}
		if results == 0 {
			return scripted.Reply{Text: "Splitting the work.", ToolCalls: []llm.ToolCall{{ID: "call_swarm", Name: "spawn_agents", Arguments: json.RawMessage(graph)}}}
		}
		return slow("The team is done: tofu is made of soybeans.")
	})
	isolate(t, model.URL)

	st, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "swarm.e2e.mjs", "swarm-e2e.png", "TOFU_E2E_WORKSPACE="+ws)
	stop()

	if b, _ := os.ReadFile(notes); string(b) != "tofu is made of soybeans\n" {
		t.Fatalf("notes.txt: %q", b)
	}
	list, _ := st.Sessions()
	var parent string
	for _, s := range list {
		if s.Parent == "" {
			parent = s.ID
		}
	}
	done := 0
	for _, ev := range swarmOf(t, st, parent) {
		if ev.Kind == store.SwarmKindAgent && ev.Agent.State == store.SwarmDone {
			done++
		}
	}
	if done != 3 {
		t.Fatalf("%d agents done", done)
	}
}
