package swarm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// waitSwarm blocks until cond holds on the swarm events of session (checked on every append).
func waitSwarm(t *testing.T, st *store.Store, session string, cond func([]store.Swarm) bool) {
	t.Helper()
	changed := make(chan struct{}, 1)
	unsub := st.Subscribe(func(ev store.Event) {
		if ev.Session == session {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	defer unsub()
	for !cond(swarmEvents(t, st, session)) {
		<-changed
	}
}

// TestInterruptThenContinue: a stop mid-swarm stops every running agent and leaves the call
// open; Continue resumes it without running the finished agents again.
func TestInterruptThenContinue(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	s := &script{graph: fanGraph}
	release := make(chan struct{})
	s.agent = func(ctx context.Context, i int, req llm.Request) scripted.Reply {
		if i == 2 {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return scripted.Reply{Text: "result of agent " + string(rune('0'+i))}
	}
	s.install(f.model)
	id := f.parent(t, "go")
	turn, err := f.runner.Start(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil {
		t.Fatal(err)
	}
	waitSwarm(t, f.st, id, func(evs []store.Swarm) bool {
		st := finalStates(evs)
		return st[1].State == store.SwarmDone && st[3].State == store.SwarmDone && st[2].State == store.SwarmRunning
	})
	f.runner.Stop(id)
	if end := turn.Wait(); end.Reason != store.EndInterrupted {
		t.Fatalf("the parent's turn ended %v", end)
	}
	before := finalStates(swarmEvents(t, f.st, id))
	if before[2].State != store.SwarmStopped || before[4].State == store.SwarmDone {
		t.Fatalf("after the stop: %+v", before)
	}
	if res := results(t, f.st, id); len(res) != 0 {
		t.Fatalf("the stopped call has a result: %+v", res)
	}
	close(release)
	end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("Continue: %v %v", end, err)
	}
	after := finalStates(swarmEvents(t, f.st, id))
	for _, i := range []int{0, 1, 3} {
		if s.callsOf(i) != 1 {
			t.Fatalf("finished agent %d was run again (%d calls)", i, s.callsOf(i))
		}
	}
	if after[2].State != store.SwarmDone || after[4].State != store.SwarmDone || after[2].Attempt != 1 {
		t.Fatalf("after Continue: %+v", after)
	}
	if res := results(t, f.st, id); len(res) != 1 || !strings.HasPrefix(res[0].Text, "SYNTHESIS") {
		t.Fatalf("result: %+v", res)
	}
}

// TestCrashThenContinue: the log as a Tofu killed mid-swarm leaves it (the call started with
// no result, agent 0 done, agent 1 running in its session with only its brief); Continue
// runs the call again, which resumes: agent 0 is not run again, agent 1 goes on in its own
// session, the rest run, and the call gets the synthesis instead of "may have run partly".
func TestCrashThenContinue(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	s := &script{graph: fanGraph}
	s.install(f.model)
	id := f.parent(t, "go")
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.st.Append(id, store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{
		{ID: "call_swarm", Name: SpawnName, Arguments: json.RawMessage(fanGraph)}}}))
	must(f.st.Append(id, store.EventToolStart, store.ToolStart{CallID: "call_swarm", Name: SpawnName}))
	// What the first Tofu recorded before it died, written by the swarm's own code.
	var specs struct{ Agents []AgentSpec }
	if err := json.Unmarshal([]byte(fanGraph), &specs); err != nil {
		t.Fatal(err)
	}
	r := &run{s: f.swarm, parent: id, callID: "call_swarm", workspace: f.ws, model: scripted.DemoModelName, parallel: 4}
	must(nil, r.addAgents(specs.Agents))
	done, err := r.child(context.Background(), 0, 1, f.ws)
	must(nil, err)
	must(f.st.Append(done, store.EventAssistant, store.AssistantMessage{Text: "the plan"}))
	must(f.st.Append(done, store.EventTurnEnd, store.TurnEnd{Reason: store.EndDone, Steps: 1}))
	must(nil, r.setStatus(store.SwarmStatus{Index: 0, State: store.SwarmDone, Session: done, Attempt: 1, Result: "the plan"}))
	cut, err := r.child(context.Background(), 1, 1, f.ws)
	must(nil, err)
	must(nil, r.setStatus(store.SwarmStatus{Index: 1, State: store.SwarmRunning, Session: cut, Attempt: 1}))

	end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("Continue: %v %v", end, err)
	}
	st := finalStates(swarmEvents(t, f.st, id))
	if s.callsOf(0) != 0 || s.callsOf(1) != 1 || st[1].Session != cut || st[1].Attempt != 1 {
		t.Fatalf("calls %v, states %+v", s.calls, st)
	}
	for i := range 5 {
		if st[i].State != store.SwarmDone {
			t.Fatalf("agent %d: %+v", i, st[i])
		}
	}
	res := results(t, f.st, id)
	if len(res) != 1 || res[0].Unfinished || !strings.HasPrefix(res[0].Text, "SYNTHESIS") {
		t.Fatalf("result: %+v", res)
	}
}

// Test429StormSharedBackoff: the provider refuses the first calls with 429s; every agent
// waits on the shared backoff and none gives up or needs a retry.
func Test429StormSharedBackoff(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Parallel: 4, Backoff: time.Millisecond})
	s := &script{graph: fanGraph}
	var refused int
	s.agent = func(_ context.Context, i int, req llm.Request) scripted.Reply {
		s.mu.Lock()
		storm := refused < 12
		if storm {
			refused++
		}
		s.mu.Unlock()
		if storm {
			return scripted.Reply{Status: http.StatusTooManyRequests, Error: "rate limited"}
		}
		return scripted.Reply{Text: "ok"}
	}
	s.install(f.model)
	id := f.parent(t, "go")
	end, err := f.runner.Run(context.Background(), session.Request{Session: id, Approve: "all"})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("turn: %v %v", end, err)
	}
	st := finalStates(swarmEvents(t, f.st, id))
	for i := range 5 {
		if st[i].State != store.SwarmDone || st[i].Attempt != 1 {
			t.Fatalf("agent %d: %+v", i, st[i])
		}
	}
	l := f.swarm.limiters[""]
	if limited, _ := l.stats(); limited != 12 {
		t.Fatalf("the limiter saw %d 429s, want 12", limited)
	}
}
