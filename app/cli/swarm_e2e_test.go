package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/store"
)

// TestRunSwarmEndToEnd: `tofu run` with a scripted model that finds spawn_agents with
// tool_search and spawns two researchers and a writer on their results; the agents run as
// child sessions, the master's synthesis is the call's result, and the run ends with it.
func TestRunSwarmEndToEnd(t *testing.T) {
	st, srv := runEnv(t)
	ws := repo(t)
	graph := `{"agents":[{"objective":"find how add works","role":"researcher"},` +
		`{"objective":"find how mul works","role":"researcher"},` +
		`{"objective":"summarize both","role":"writer","depends_on":[0,1]}]}`
	srv.DefaultFunc(func(r llm.Request) llmtest.Reply {
		first := ""
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser {
				first = m.Content
				break
			}
		}
		switch {
		case strings.HasPrefix(first, "You are agent 0 "):
			return llmtest.Reply{Text: "add subtracts: a bug"}
		case strings.HasPrefix(first, "You are agent 1 "):
			return llmtest.Reply{Text: "mul adds: a bug"}
		case strings.HasPrefix(first, "You are agent 2 "):
			if !strings.Contains(first, "add subtracts") || !strings.Contains(first, "mul adds") {
				return llmtest.Reply{Text: "the writer did not get its inputs"}
			}
			return llmtest.Reply{Text: "Both add and mul are wrong."}
		case strings.HasPrefix(llmtest.LastUser(r), "You are the master"):
			return llmtest.Reply{Text: "Synthesis: add and mul are both broken."}
		}
		switch toolStep(r) {
		case 0:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{tc("s", "tool_search", map[string]any{"query": "spawn agents"})}}
		case 1:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "sw", Name: "spawn_agents", Arguments: json.RawMessage(graph)}}}
		}
		return llmtest.Reply{Text: "The team found that add and mul are both broken."}
	})
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "find what is wrong, with a team", Workspace: ws, Approve: "all", MaxSteps: 10}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
	}
	if !strings.Contains(out.String(), "add and mul are both broken") || !strings.Contains(errOut.String(), "→ spawn_agents") {
		t.Fatalf("terminal output:\n%s\n%s", out.String(), errOut.String())
	}
	list, _ := st.Sessions()
	var parent string
	children := 0
	for _, s := range list {
		if s.Parent == "" {
			parent = s.ID
		} else {
			children++
		}
	}
	if children != 4 { // three agents and one master round
		t.Fatalf("%d child sessions", children)
	}
	evs, _ := st.Events(parent)
	var result store.ToolResult
	done := 0
	for _, ev := range evs {
		var sw store.Swarm
		if ev.Type == store.EventSwarm && ev.Decode(&sw) == nil && sw.Kind == store.SwarmKindAgent && sw.Agent.State == store.SwarmDone {
			done++
		}
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil && r.Name == "spawn_agents" {
			result = r
		}
	}
	if done != 3 || !strings.HasPrefix(result.Text, "Synthesis: add and mul are both broken.") {
		t.Fatalf("%d agents done; result %+v", done, result)
	}
}
