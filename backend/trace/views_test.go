package trace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestRebuildAnAutonomousRun: the planner's and the critic's requests see their own view of
// the log (their brief and their own calls); each is rebuilt from the phase it belongs to.
func TestRebuildAnAutonomousRun(t *testing.T) {
	t.Parallel()
	dir, ws := t.TempDir(), t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.DemoModel())
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		system := ""
		if len(r.Messages) > 0 && r.Messages[0].Role == llm.RoleSystem {
			system = r.Messages[0].Content
		}
		switch {
		case strings.Contains(system, "You are the planner"):
			return scripted.Reply{Text: "1. Write a.txt\n2. Check it"}
		case strings.Contains(system, "You are the critic"):
			return scripted.Reply{Text: "a.txt is there.\nVERDICT: STOP"}
		case r.Messages[len(r.Messages)-1].Role == llm.RoleUser:
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "w1", Name: "write_file",
				Arguments: json.RawMessage(`{"path":"a.txt","content":"hello\n"}`)}}}
		}
		return scripted.Reply{Text: "Wrote a.txt."}
	})
	r := runner(t, st, srv, llm.WireOllama)
	info, err := st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Workspace, i.Mode = ws, session.ModeAutonomous }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: "Write hello into a.txt."}); err != nil {
		t.Fatal(err)
	}
	end, err := r.Run(context.Background(), session.Request{Session: info.ID, Approve: "all"})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("run: %+v %v", end, err)
	}
	r.Shutdown()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir)
	calls, _, err := Calls(st, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	phases := 0
	for _, c := range calls {
		if c.Report.Request.Built.Phase != 0 {
			phases++
		}
	}
	res, err := Verify(st, info.ID)
	if err != nil || len(res.Rebuilt) != len(calls) || phases < 2 {
		t.Fatalf("verify: %+v %v (%d calls, %d in a planner or critic phase)", res, err, len(calls), phases)
	}
}

// TestRebuildAPaperSession: a paper session's request is what the reader gave (the passages it
// retrieved, which the log does not hold): verify takes it from the blob the call recorded
// and says so.
func TestRebuildAPaperSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Text: "The paper says 42."})
	augment := func(o *session.Options) {
		o.Augment = func(_, _ string, msgs []llm.Message) ([]llm.Message, error) {
			out := append([]llm.Message(nil), msgs[:len(msgs)-1]...)
			last := msgs[len(msgs)-1]
			last.Content = fmt.Sprintf("Passages:\n[p1] The answer is 42.\n\nQuestion: %s", last.Content)
			return append(out, last), nil
		}
	}
	r := runner(t, st, srv, llm.WireAnthropic, augment)
	info, err := st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Paper = "paper-1" }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: "What is the answer?"}); err != nil {
		t.Fatal(err)
	}
	if end, err := r.Run(context.Background(), session.Request{Session: info.ID}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("run: %+v %v", end, err)
	}
	r.Shutdown()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir)
	res, err := Verify(st, info.ID)
	if err != nil || len(res.Rebuilt) != 1 || len(res.FromAugmented) != 1 {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if sum := strings.Join(res.Summary(), "\n"); !strings.Contains(sum, "the paper reader's messages") {
		t.Fatalf("summary:\n%s", sum)
	}
}
