package agent

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

var errDiskFull = errors.New("disk full")

// failingLog is the store with a disk that fills up: writes from the nth on fail.
type failingLog struct {
	*store.Store
	n      int32
	writes atomic.Int32
}

func (f *failingLog) AppendBatch(session string, entries ...store.Entry) ([]store.Event, error) {
	if f.writes.Add(1) >= f.n {
		return nil, errDiskFull
	}
	return f.Store.AppendBatch(session, entries...)
}

// TestFailedWriteEndsTheTurn: whichever write fails (the reply, the call's start, the tool
// results, the asked approval, the answer), the turn ends at once with that error, and no call
// runs whose approval or start could not be recorded.
func TestFailedWriteEndsTheTurn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		failAt  int32
		ask     bool
		ran     int  // tool runs before the end
		asked   bool // the approver was asked
		written string
	}{
		{"the reply", 1, false, 0, false, "user"},
		{"the call's start", 2, false, 0, false, "user,assistant,usage"},
		{"the tool results", 3, false, 1, false, "user,assistant,usage,tool_start"},
		{"the asked approval", 2, true, 0, false, "user,assistant,usage"},
		{"the answer", 3, true, 0, true, "user,assistant,usage,approval"},
		{"the next reply", 4, false, 1, false, "user,assistant,usage,tool_start,tool_result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			log := &failingLog{Store: e.st, n: tc.failAt}
			e.agent.Log = log
			e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
				ToolCalls: []llm.ToolCall{call("c1", "write", `{"path":"a.go"}`)},
			})
			e.model.Default(scripted.Reply{Text: "done"})
			ft := &fakeTools{}
			asked := false
			action := Allow
			if tc.ask {
				action = Ask
			}
			e.say(t, "go")
			end := e.agent.Run(context.Background(), Turn{
				Session: e.sess, Model: scripted.DemoModelName, Tools: ft,
				Policy: policyFunc(func(tools.Call, []tools.Access) Verdict {
					return Verdict{Action: action, Subject: "a.go", Reason: "a write"}
				}),
				Approver: approverFunc(func(store.Approval) (string, error) { asked = true; return "allow", nil }),
			})
			if end.Reason != store.EndError || !errors.Is(end.Err, errDiskFull) || !errors.Is(end.Err, ErrLog) {
				t.Fatalf("end = %+v", end)
			}
			if got := len(ft.ran()); got != tc.ran {
				t.Fatalf("%d tool runs, want %d", got, tc.ran)
			}
			if asked != tc.asked {
				t.Fatalf("asked = %v", asked)
			}
			if got := e.types(); got != tc.written {
				t.Fatalf("log %s, want %s", got, tc.written)
			}
			// No write is attempted after the failure but the turn's end.
			if w := log.writes.Load(); w != tc.failAt+1 {
				t.Fatalf("%d writes, want %d (the failed one and turn_end)", w, tc.failAt+1)
			}
		})
	}
}

// TestClosedStoreEndsTheTurn: the real store, closed under a running turn.
func TestClosedStoreEndsTheTurn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.Default(scripted.Reply{Text: "an answer nobody will read"})
	e.say(t, "hello")
	j, err := OpenJournal(e.st, e.sess)
	if err != nil {
		t.Fatal(err)
	}
	e.st.Close()
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Journal: j})
	if end.Reason != store.EndError || !errors.Is(end.Err, ErrLog) {
		t.Fatalf("end = %+v", end)
	}
}

// TestJournalFollowsOtherWriters: a journal kept between turns reads what others appended, and
// one that finds a gap after its own write takes the log as it is.
func TestJournalFollowsOtherWriters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.Default(scripted.Reply{Text: "ok"})
	e.say(t, "one")
	j, err := OpenJournal(e.st, e.sess)
	if err != nil {
		t.Fatal(err)
	}
	turn := Turn{Session: e.sess, Model: scripted.DemoModelName, Journal: j}
	if end := e.agent.Run(context.Background(), turn); end.Reason != store.EndDone {
		t.Fatal(end)
	}
	e.say(t, "two")
	if end := e.agent.Run(context.Background(), turn); end.Reason != store.EndDone {
		t.Fatal(end)
	}
	e.say(t, "three") // not seen by the journal yet
	if _, err := j.record(store.Entry{Type: store.EventNotice, Payload: store.Notice{Text: "n"}}); err != nil {
		t.Fatal(err)
	}
	evs, _ := e.st.Events(e.sess)
	got := j.Events()
	if len(got) != len(evs) {
		t.Fatalf("journal has %d events, log %d", len(got), len(evs))
	}
	for i := range evs {
		if got[i].Seq != evs[i].Seq || got[i].Type != evs[i].Type {
			t.Fatalf("event %d: %+v vs %+v", i, got[i], evs[i])
		}
	}
	want := Messages(evs)
	msgs := j.Messages()
	if len(msgs) != len(want) || msgs[len(msgs)-1].Content != "three" {
		t.Fatalf("messages %+v, want %+v", msgs, want)
	}
}
