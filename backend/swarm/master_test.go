package swarm

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestMasterRounds: after the graph drains, the master may add agents (they run with the
// results they depend on, and the next round sees them), is told when its request does not
// validate, and is bounded: past the last round its answer is the synthesis, or the results
// as they stand when it still asks for agents.
func TestMasterRounds(t *testing.T) {
	t.Parallel()
	const more = `{"agents":[{"objective":"check the finding","role":"reviewer","depends_on":[0]}]}`
	for _, c := range []struct {
		name    string
		answers []string // the master's answer in each round
		agents  int      // agents in the end
		rounds  int
		result  string // the call's result starts with it
		told    string // a later round's brief holds it
	}{
		{"spawns one more, then synthesizes", []string{more, "FINAL from two agents"}, 2, 2, "FINAL from two agents", "| 1 | reviewer | done |"},
		{"a bad request is refused and said", []string{`{"agents":[{"objective":"x","depends_on":[7]}]}`, "FINAL anyway"}, 1, 2, "FINAL anyway", "was refused"},
		{"always asks: bounded", []string{more, more, more, more}, 3, 3, "The master asked for more agents after its last round", "This is the last round"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, Options{})
			var mu sync.Mutex
			var briefs []string
			s := &script{graph: `{"agents":[{"objective":"find it","role":"researcher"}]}`,
				agent: func(_ context.Context, i int, req llm.Request) scripted.Reply {
					if i == 1 && !strings.Contains(scripted.LastUser(req), "result of agent 0") {
						return scripted.Reply{Text: "the added agent did not get its input"}
					}
					return scripted.Reply{Text: "result of agent " + string(rune('0'+i))}
				},
				master: func(req llm.Request) scripted.Reply {
					mu.Lock()
					defer mu.Unlock()
					briefs = append(briefs, scripted.LastUser(req))
					return scripted.Reply{Text: c.answers[min(len(briefs), len(c.answers))-1]}
				}}
			s.install(f.model)
			id := f.parent(t, "the task")
			if end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"}); err != nil || end.Reason != store.EndDone {
				t.Fatalf("turn: %v %v", end, err)
			}
			states := finalStates(swarmEvents(t, f.st, id))
			if len(states) != c.agents {
				t.Fatalf("%d agents: %+v", len(states), states)
			}
			for i, st := range states {
				if st.State != store.SwarmDone || strings.Contains(st.Result, "did not get") {
					t.Fatalf("agent %d: %+v", i, st)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(briefs) != c.rounds || !strings.Contains(briefs[len(briefs)-1], c.told) {
				t.Fatalf("%d rounds; the last brief:\n%s", len(briefs), briefs[len(briefs)-1])
			}
			res := results(t, f.st, id)
			if len(res) != 1 || !strings.HasPrefix(res[0].Text, c.result) {
				t.Fatalf("result: %+v", res)
			}
		})
	}
}
