package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
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
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		first := ""
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser {
				first = m.Content
				break
			}
		}
		switch {
		case strings.HasPrefix(first, "You are agent 0 "):
			return scripted.Reply{Text: "add subtracts: a bug"}
		case strings.HasPrefix(first, "You are agent 1 "):
			return scripted.Reply{Text: "mul adds: a bug"}
		case strings.HasPrefix(first, "You are agent 2 "):
			if !strings.Contains(first, "add subtracts") || !strings.Contains(first, "mul adds") {
				return scripted.Reply{Text: "the writer did not get its inputs"}
			}
			return scripted.Reply{Text: "Both add and mul are wrong."}
		case strings.HasPrefix(scripted.LastUser(r), "You are the master"):
			return scripted.Reply{Text: "Synthesis: add and mul are both broken."}
		}
		switch toolStep(r) {
		case 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("s", "tool_search", map[string]any{"query": "spawn agents"})}}
		case 1:
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "sw", Name: "spawn_agents", Arguments: json.RawMessage(graph)}}}
		}
		return scripted.Reply{Text: "The team found that add and mul are both broken."}
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

// TestRunSwarmSurvivesSIGKILL kills a real `tofu run` while one agent of its swarm is in the
// middle of a model call, then continues the session: the finished agent is not run again,
// the cut one goes on in its own session, the rest run, and the call gets the synthesis.
func TestRunSwarmSurvivesSIGKILL(t *testing.T) {
	st, srv := runEnv(t)
	dataDir := t.TempDir()
	st.Close()
	ws := repo(t)
	graph := `{"agents":[{"objective":"plan","role":"planner"},{"objective":"slow part","depends_on":[0]},` +
		`{"objective":"write","role":"writer","depends_on":[1]}]}`
	var mu sync.Mutex
	calls := map[int]int{}
	cutting := make(chan struct{})
	srv.DefaultFuncContext(func(ctx context.Context, r llm.Request) scripted.Reply {
		first := ""
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser {
				first = m.Content
				break
			}
		}
		for i := range 3 {
			if strings.HasPrefix(first, fmt.Sprintf("You are agent %d ", i)) {
				mu.Lock()
				calls[i]++
				n := calls[i]
				mu.Unlock()
				if i == 1 && n == 1 {
					close(cutting)
					<-ctx.Done() // the first Tofu dies while it waits
					return scripted.Reply{Text: "never seen"}
				}
				return scripted.Reply{Text: fmt.Sprintf("result %d", i)}
			}
		}
		if strings.HasPrefix(scripted.LastUser(r), "You are the master") {
			return scripted.Reply{Text: "Synthesis after the crash."}
		}
		if toolStep(r) == 0 {
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "sw", Name: "spawn_agents", Arguments: json.RawMessage(graph)}}}
		}
		return scripted.Reply{Text: "Resumed and done."}
	})
	st2, parent := killSwarmRun(t, dataDir, cutting, "agent 1 never called the model", "--cwd", ws, "--approve", "all", "use a team")
	cut := ""
	for _, ev := range swarmOf(t, st2, parent) {
		if ev.Kind == store.SwarmKindAgent && ev.Agent.Index == 1 && ev.Agent.State == store.SwarmRunning {
			cut = ev.Agent.Session
		}
	}
	if cut == "" {
		t.Fatal("agent 1 was not recorded running before the kill")
	}
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st2, RunOptions{Continue: parent, Approve: "all"}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("continue: %+v, %v\n%s", end, err, errOut.String())
	}
	mu.Lock()
	got := fmt.Sprint(calls)
	mu.Unlock()
	if got != "map[0:1 1:2 2:1]" {
		t.Fatalf("model calls per agent: %s", got)
	}
	last := map[int]store.SwarmStatus{}
	for _, ev := range swarmOf(t, st2, parent) {
		if ev.Kind == store.SwarmKindAgent {
			last[ev.Agent.Index] = *ev.Agent
		}
	}
	if last[1].Session != cut || last[1].State != store.SwarmDone || last[2].State != store.SwarmDone {
		t.Fatalf("after Continue: %+v", last)
	}
	evs, _ := st2.Events(parent)
	for _, ev := range evs {
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil && (r.Unfinished || !strings.HasPrefix(r.Text, "Synthesis after the crash.")) {
			t.Fatalf("the call's result: %+v", r)
		}
	}
	if !strings.Contains(out.String(), "Resumed and done.") {
		t.Fatalf("out %q", out.String())
	}
}

// killSwarmRun starts a real `tofu run args…` that spawns a swarm, kills it once cutting
// closes (failing with what on a hang), and reopens its store: the store and the swarm's
// parent session.
func killSwarmRun(t *testing.T, dataDir string, cutting <-chan struct{}, what string, args ...string) (*store.Store, string) {
	t.Helper()
	cmd := startRun(t, dataDir, args...)
	select {
	case <-cutting:
	case <-time.After(time.Minute): // only a hang
		cmd.Process.Kill()
		t.Fatal(what)
	}
	st := killAndReopen(t, cmd, dataDir)
	list, _ := st.Sessions()
	var parent string
	for _, s := range list {
		if s.Parent == "" {
			parent = s.ID
		}
	}
	return st, parent
}

func swarmOf(t *testing.T, st *store.Store, session string) []store.Swarm {
	t.Helper()
	evs, err := st.Events(session)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Swarm
	for _, ev := range evs {
		var sw store.Swarm
		if ev.Type == store.EventSwarm && ev.Decode(&sw) == nil {
			out = append(out, sw)
		}
	}
	return out
}

// TestRunSwarmCoderSurvivesSIGKILL kills a real `tofu run` while a coder of its swarm, in its
// own git worktree, waits on the model after its first edit. Continue goes on in that
// worktree and session: the first edit is not asked for again, the second is made, and both
// land in the workspace, uncommitted; no worktree is left.
func TestRunSwarmCoderSurvivesSIGKILL(t *testing.T) {
	st, srv := runEnv(t)
	dataDir := t.TempDir()
	st.Close()
	ws := repo(t)
	graph := `{"agents":[{"objective":"fix add and mul","role":"coder"}]}`
	var mu sync.Mutex
	firstEdits, cuts := 0, 0
	cutting := make(chan struct{})
	srv.DefaultFuncContext(func(ctx context.Context, r llm.Request) scripted.Reply {
		first := ""
		results := 0
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser && first == "" {
				first = m.Content
			}
			if m.Role == llm.RoleTool {
				results++
			}
		}
		if strings.HasPrefix(first, "You are agent 0 ") {
			mu.Lock()
			defer mu.Unlock()
			switch results {
			case 0:
				firstEdits++
				return scripted.Reply{ToolCalls: []llm.ToolCall{tc("e1", "edit_files", map[string]any{"edits": []map[string]string{
					{"path": "lib/add.sh", "old_string": "$1 - $2", "new_string": "$1 + $2"}}})}}
			case 1:
				if cuts++; cuts == 1 {
					close(cutting)
					mu.Unlock()
					<-ctx.Done() // the first Tofu dies while it waits
					mu.Lock()
					return scripted.Reply{Text: "never seen"}
				}
				return scripted.Reply{ToolCalls: []llm.ToolCall{tc("e2", "edit_files", map[string]any{"edits": []map[string]string{
					{"path": "lib/mul.sh", "old_string": "$1 + $2", "new_string": "$1 * $2"}}})}}
			}
			return scripted.Reply{Text: "fixed add and mul"}
		}
		if strings.HasPrefix(scripted.LastUser(r), "You are the master") {
			return scripted.Reply{Text: "Synthesis: both fixed."}
		}
		if toolStep(r) == 0 {
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "sw", Name: "spawn_agents", Arguments: json.RawMessage(graph)}}}
		}
		return scripted.Reply{Text: "Resumed and done."}
	})
	st2, parent := killSwarmRun(t, dataDir, cutting, "the coder never made its second model call", "--cwd", ws, "--approve", "all", "fix with a team")
	var cut store.SwarmStatus
	for _, ev := range swarmOf(t, st2, parent) {
		if ev.Kind == store.SwarmKindAgent && ev.Agent.State == store.SwarmRunning {
			cut = *ev.Agent
		}
	}
	if cut.Worktree == "" {
		t.Fatalf("the coder's worktree was not recorded: %+v", cut)
	}
	if b, _ := os.ReadFile(filepath.Join(cut.Worktree, "lib/add.sh")); !strings.Contains(string(b), "$1 + $2") {
		t.Fatalf("the killed coder's worktree: %q", b)
	}
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st2, RunOptions{Continue: parent, Approve: "all"}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("continue: %+v, %v\n%s", end, err, errOut.String())
	}
	var last store.SwarmStatus
	for _, ev := range swarmOf(t, st2, parent) {
		if ev.Kind == store.SwarmKindAgent {
			last = *ev.Agent
		}
	}
	mu.Lock()
	edits := firstEdits
	mu.Unlock()
	if edits != 1 || last.State != store.SwarmDone || last.Session != cut.Session || last.Attempt != 1 {
		t.Fatalf("first edit asked %d times; after Continue: %+v", edits, last)
	}
	add, _ := os.ReadFile(filepath.Join(ws, "lib/add.sh"))
	mul, _ := os.ReadFile(filepath.Join(ws, "lib/mul.sh"))
	if !strings.Contains(string(add), "$1 + $2") || !strings.Contains(string(mul), "$1 * $2") {
		t.Fatalf("the workspace: add %q, mul %q\n%s", add, mul, last.Result)
	}
	if _, err := os.Stat(cut.Worktree); !os.IsNotExist(err) {
		t.Fatalf("the worktree is left: %v", err)
	}
}
