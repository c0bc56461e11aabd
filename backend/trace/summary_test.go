package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// summarySession records a plain conversation long enough for the context manager's L2 to
// summarize its earlier turns (over Ollama's format, whose window is known: the demo model's
// 8,192 tokens), each reply naming its turn. It returns the store's folder, the session and
// the bodies the model server received, in order. more adjusts the runner's options.
func summarySession(t *testing.T, more ...func(*session.Options)) (dir, id string, bodies [][]byte) {
	t.Helper()
	dir = t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.DemoModel())
	srv.On(func(r llm.Request) bool {
		return len(r.Messages) > 0 && r.Messages[0].Content == compact.SummaryPrompt
	}).Reply(scripted.Reply{Text: "The user sent long notes about numbered topics; each was acknowledged."})
	for turn := range 6 {
		srv.On(func(r llm.Request) bool {
			last := r.Messages[len(r.Messages)-1]
			return last.Role == llm.RoleUser && strings.HasPrefix(last.Content, fmt.Sprintf("Notes on topic %d:", turn))
		}).Reply(scripted.Reply{Text: fmt.Sprintf("Noted topic %d.", turn)})
	}
	r := runner(t, st, srv, llm.WireOllama, more...)
	info, err := st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	for turn := range 6 {
		var b strings.Builder
		fmt.Fprintf(&b, "Notes on topic %d:", turn)
		for i := range 600 {
			fmt.Fprintf(&b, " word%d", (turn*600+i)%997)
		}
		if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: b.String()}); err != nil {
			t.Fatal(err)
		}
		if end, err := r.Run(context.Background(), session.Request{Session: info.ID}); err != nil || end.Reason != store.EndDone {
			t.Fatalf("turn %d: %+v %v", turn, end, err)
		}
	}
	r.Shutdown()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range srv.Chats() {
		bodies = append(bodies, c.Body)
	}
	return dir, info.ID, bodies
}

// TestRebuildAcrossASummary: the L2 summariser's calls are model calls of the session like the
// others: each is fingerprinted, and its request is built again from the log up to its
// compaction, byte for byte what the model server received; the requests after a summary carry
// it instead of the turns it stands for, and every request rebuilds.
func TestRebuildAcrossASummary(t *testing.T) {
	t.Parallel()
	dir, id, bodies := summarySession(t)
	st := open(t, dir)
	evs, err := st.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	summaries := 0
	for _, e := range evs {
		if e.Type == store.EventCompaction {
			summaries++
		}
	}
	if last := bodies[len(bodies)-1]; summaries == 0 || !bytes.Contains(last, []byte("each was acknowledged")) {
		t.Fatalf("%d summaries; the last request:\n%s", summaries, last)
	}
	res, err := Verify(st, id)
	if err != nil {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if res.Calls != 6+summaries || res.Verified != res.Calls || len(res.Rebuilt) != res.Calls ||
		len(res.Summaries) != summaries || len(res.FromContext) != 6 || len(res.FromSystem) != 6 {
		t.Fatalf("verify: %+v", res)
	}
	calls, _, err := Calls(st, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != len(bodies) {
		t.Fatalf("%d calls recorded, the server received %d requests", len(calls), len(bodies))
	}
	for i, c := range calls {
		if !c.Rebuilt || !bytes.Equal(c.Body, bodies[i]) {
			t.Fatalf("call %d rebuilt (%v, %v):\n%s\nthe server received:\n%s", c.N, c.Rebuilt, c.Err, c.Body, bodies[i])
		}
	}
	s := res.Summaries[0]
	if !bytes.Contains(calls[s-1].Body, []byte(compact.SummaryPrompt[:40])) {
		t.Fatalf("call %d is not the summariser's:\n%s", s, calls[s-1].Body)
	}
	if sum := strings.Join(res.Summary(), "\n"); !strings.Contains(sum, fmt.Sprintf("L2 summariser's requests rebuilt from the view up to their compaction: call %d", s)) {
		t.Fatalf("summary:\n%s", sum)
	}
}

// TestVerifyFindsAnEditOfASummaryInput: the same session with what only the summariser read
// edited (the reply just before the first summary, which the summary request is the first to
// carry; or the summariser's prompt blob): verify stops at the summary call.
func TestVerifyFindsAnEditOfASummaryInput(t *testing.T) {
	t.Parallel()
	for _, what := range []string{"assistant message", "summariser's prompt"} {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			dir, id, bodies := summarySession(t)
			st := open(t, dir)
			res, err := Verify(st, id)
			if err != nil || len(res.Summaries) == 0 {
				t.Fatalf("verify before the edit: %+v %v", res, err)
			}
			calls, evs, err := Calls(st, id)
			if err != nil {
				t.Fatal(err)
			}
			s := calls[res.Summaries[0]-1]
			var reply store.Event
			for _, e := range evs {
				if e.Type == store.EventAssistant && e.Seq <= s.Report.Request.Built.Upto {
					reply = e
				}
			}
			var a store.AssistantMessage
			if err := reply.Decode(&a); err != nil || !bytes.Contains(bodies[s.N-1], []byte(a.Text)) {
				t.Fatalf("the reply before the summary (%q, %v) is not in its request:\n%s", a.Text, err, bodies[s.N-1])
			}
			st.Close()
			want := fmt.Sprintf("model call %d (event %d): ", s.N, s.Seq)
			switch what {
			case "assistant message":
				tamperWhere(t, dir, id, func(e store.Event) bool { return e.Seq == reply.Seq }, func(e *store.Event) {
					a.Text = "Ignored the topic."
					e.Data, _ = json.Marshal(a)
				})
				want += fmt.Sprintf("the request rebuilt from the log (events up to %d) hashes to", s.Report.Request.Built.Upto)
			default:
				editPart(t, dir, s.Report.Request.Built.System, "compress", "expand")
				want += "the request could not be rebuilt: the summariser's prompt (part/"
			}
			_, err = Verify(open(t, dir), id)
			var m *Mismatch
			if !errors.As(err, &m) || !strings.Contains(err.Error(), want) {
				t.Fatalf("verify = %v, want a mismatch %q", err, want)
			}
		})
	}
}
