package swarm

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

const fanGraph = `{"agents":[
 {"objective":"plan the work","role":"planner"},
 {"objective":"part A","role":"researcher","depends_on":[0]},
 {"objective":"part B","role":"analyst","depends_on":[0]},
 {"objective":"part C","role":"reviewer","depends_on":[0]},
 {"objective":"write it up","role":"writer","depends_on":[1,2,3]}]}`

// TestFanOutFanIn: one planner, three agents on its result in parallel, one writer on theirs;
// each agent is a child session of the parent, each dependent reads its inputs' results, and
// the master's synthesis is the call's result.
func TestFanOutFanIn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	s := &script{graph: fanGraph}
	s.install(f.model)
	id := f.parent(t, "research the thing")
	end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %v", end, err)
	}
	res := results(t, f.st, id)
	if len(res) != 1 || !strings.HasPrefix(res[0].Text, "SYNTHESIS of the team's results") || !strings.Contains(res[0].Text, "5 agents, 5 done") {
		t.Fatalf("result: %+v", res)
	}
	evs := swarmEvents(t, f.st, id)
	states := finalStates(evs)
	// Order of the log: the writer starts after its three inputs are done.
	doneAt, startedAt := map[int]int{}, map[int]int{}
	for k, e := range evs {
		if e.Kind != store.SwarmKindAgent {
			continue
		}
		switch e.Agent.State {
		case store.SwarmDone:
			doneAt[e.Agent.Index] = k
		case store.SwarmRunning:
			startedAt[e.Agent.Index] = k
		}
	}
	for _, d := range []int{1, 2, 3} {
		if doneAt[d] > startedAt[4] || doneAt[0] > startedAt[d] {
			t.Fatalf("an agent started before its inputs were done: %v %v", doneAt, startedAt)
		}
	}
	for i := range 5 {
		st := states[i]
		if st.State != store.SwarmDone || st.Result != "result of agent "+string(rune('0'+i)) {
			t.Fatalf("agent %d: %+v", i, st)
		}
		info, err := f.st.Session(st.Session)
		if err != nil || info.Parent != id || info.ParentCall != "call_swarm" || info.Purpose != store.PurposeSwarmAgent {
			t.Fatalf("agent %d's session: %+v %v", i, info, err)
		}
		if s.callsOf(i) != 1 {
			t.Fatalf("agent %d was called %d times", i, s.callsOf(i))
		}
	}
	// The writer read the three results it depends on.
	var brief string
	for _, c := range f.model.Chats() {
		if agentOf(*c.Request) == 4 {
			brief = scripted.LastUser(*c.Request)
		}
	}
	for _, want := range []string{"result of agent 1", "result of agent 2", "result of agent 3"} {
		if !strings.Contains(brief, want) {
			t.Fatalf("the writer's brief lacks %q:\n%s", want, brief)
		}
	}
	// The reviewer is offered only the tools that read.
	for _, c := range f.model.Chats() {
		if agentOf(*c.Request) != 3 {
			continue
		}
		for _, tool := range c.Request.Tools {
			if slices.Contains([]string{"write_file", "edit_files", "run_command", "artifact_store"}, tool.Name) {
				t.Fatalf("the reviewer was offered %s", tool.Name)
			}
		}
	}
}

// TestCycleAndBadIndexAreToolErrors: a graph that is not a DAG starts nothing and the model
// reads why.
func TestCycleAndBadIndexAreToolErrors(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ graph, want string }{
		"cycle":     {`{"agents":[{"objective":"a","depends_on":[2]},{"objective":"b","depends_on":[0]},{"objective":"c","depends_on":[1]}]}`, "cycle (0 → 2 → 1 → 0)"},
		"bad index": {`{"agents":[{"objective":"a","depends_on":[5]}]}`, "names no agent"},
		"self":      {`{"agents":[{"objective":"a","depends_on":[0]}]}`, "depends on itself"},
		"role":      {`{"agents":[{"objective":"a","role":"wizard"}]}`, "is not a role"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, Options{})
			s := &script{graph: c.graph}
			s.install(f.model)
			id := f.parent(t, "go")
			if _, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil {
				t.Fatal(err)
			}
			res := results(t, f.st, id)
			if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, c.want) {
				t.Fatalf("want an error with %q, got %+v", c.want, res)
			}
			if len(swarmEvents(t, f.st, id)) != 0 {
				t.Fatal("a swarm was recorded")
			}
		})
	}
}

// TestFailingAgentIsRetried: an agent whose model call fails is run again in a new session,
// and the swarm finishes.
func TestFailingAgentIsRetried(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	s := &script{graph: fanGraph}
	s.agent = func(_ context.Context, i int, req llm.Request) scripted.Reply {
		if i == 2 && s.callsOf(2) == 1 {
			return scripted.Reply{Status: 400, Error: "scripted failure"}
		}
		return scripted.Reply{Text: "ok " + string(rune('0'+i))}
	}
	s.install(f.model)
	id := f.parent(t, "go")
	if _, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil {
		t.Fatal(err)
	}
	var seen []store.SwarmState
	for _, e := range swarmEvents(t, f.st, id) {
		if e.Kind == store.SwarmKindAgent && e.Agent.Index == 2 {
			seen = append(seen, e.Agent.State)
		}
	}
	want := []store.SwarmState{store.SwarmRunning, store.SwarmRetrying, store.SwarmRunning, store.SwarmDone}
	if !slices.Equal(seen, want) {
		t.Fatalf("agent 2 went through %v, want %v", seen, want)
	}
	st := finalStates(swarmEvents(t, f.st, id))
	if st[2].Attempt != 2 || st[4].State != store.SwarmDone {
		t.Fatalf("states: %+v", st)
	}
}

// TestAgentFailingForGoodSkipsItsDependents: past its attempts an agent fails, the agents
// that need it are skipped, the others finish, and the master still answers.
func TestAgentFailingForGoodSkipsItsDependents(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{MaxAttempts: 2})
	s := &script{graph: fanGraph}
	s.agent = func(_ context.Context, i int, req llm.Request) scripted.Reply {
		if i == 1 {
			return scripted.Reply{Status: 400, Error: "scripted failure"}
		}
		return scripted.Reply{Text: "ok"}
	}
	s.install(f.model)
	id := f.parent(t, "go")
	if _, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil {
		t.Fatal(err)
	}
	st := finalStates(swarmEvents(t, f.st, id))
	if st[1].State != store.SwarmFailed || st[1].Attempt != 2 || st[4].State != store.SwarmSkipped || st[2].State != store.SwarmDone {
		t.Fatalf("states: %+v", st)
	}
	if s.callsOf(1) != 2 || s.callsOf(4) != 0 {
		t.Fatalf("calls: %v", s.calls)
	}
	if res := results(t, f.st, id); len(res) != 1 || !strings.Contains(res[0].Text, "1 failed, 1 skipped") {
		t.Fatalf("result: %+v", res)
	}
}
