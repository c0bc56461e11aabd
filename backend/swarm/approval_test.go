package swarm

import (
	"context"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestWindowAnswersAnAgentsApproval: under the window (it answers cards) an agent's call that
// needs approval waits; the parent's log says which agent waits and on what, the approval
// answered for the agent's session lets it run (the log says running again while the rest of
// its turn goes on), and the swarm finishes.
func TestWindowAnswersAnAgentsApproval(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	if err := writeFile(f.ws+"/file.txt", "one\ntwo\n"); err != nil {
		t.Fatal(err)
	}
	proceed := make(chan struct{})
	edit := coderScript([][2]string{{"one\n", "ONE\n"}})
	s := &script{graph: `{"agents":[{"objective":"edit","role":"coder"}]}`, agent: func(ctx context.Context, i int, req llm.Request) scripted.Reply {
		if hasToolResult(req) {
			select { // the rest of its turn, once the test saw it running again
			case <-proceed:
			case <-ctx.Done():
			}
		}
		return edit(ctx, i, req)
	}}
	s.install(f.model)
	id := f.parent(t, "edit with a team")
	turn, err := f.runner.Start(context.Background(), session.Request{Session: id, Questions: true})
	if err != nil {
		t.Fatal(err)
	}
	var asked store.SwarmStatus
	waitSwarm(t, f.st, id, func(evs []store.Swarm) bool {
		asked = finalStates(evs)[0]
		return asked.State == store.SwarmWaiting
	})
	if asked.Asking == "" || asked.Session == "" {
		t.Fatalf("waiting: %+v", asked)
	}
	evs, _ := f.st.Events(asked.Session)
	callID := ""
	for _, ev := range evs {
		var ap store.Approval
		if ev.Type == store.EventApproval && ev.Decode(&ap) == nil && ap.Decision == "" {
			callID = ap.CallID
		}
	}
	if err := f.runner.Approve(asked.Session, callID, "allow"); err != nil {
		t.Fatal(err)
	}
	waitSwarm(t, f.st, id, func(evs []store.Swarm) bool {
		st := finalStates(evs)[0]
		return st.State == store.SwarmRunning && st.Asking == "" && st.Session == asked.Session
	})
	close(proceed)
	if end := turn.Wait(); end.Reason != store.EndDone {
		t.Fatalf("turn: %+v", end)
	}
	if got, _ := readFile(f.ws + "/file.txt"); got != "ONE\ntwo\n" {
		t.Fatalf("file.txt: %q", got)
	}
	if st := finalStates(swarmEvents(t, f.st, id))[0]; st.State != store.SwarmDone {
		t.Fatalf("agent: %+v", st)
	}
}
