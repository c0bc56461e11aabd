package trace

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestRebuildAcrossASummary: a plain conversation long enough for the context manager's L2
// to summarize its earlier turns (over Ollama's format, whose window is known): the requests
// after the summary carry it instead of those turns, and every request still rebuilds from the
// log.
func TestRebuildAcrossASummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.DemoModel()) // an 8,192-token window
	srv.On(func(r llm.Request) bool {
		return len(r.Messages) > 0 && r.Messages[0].Content == compact.SummaryPrompt
	}).Reply(llmtest.Reply{Text: "The user sent long notes about numbered topics; each was acknowledged."})
	srv.Default(llmtest.Reply{Text: "Noted."})
	r := runner(t, st, srv, llm.WireOllama)
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
	st = open(t, dir)
	evs, err := st.Events(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	summaries := 0
	for _, e := range evs {
		if e.Type == store.EventCompaction {
			summaries++
		}
	}
	last := srv.Chats()[len(srv.Chats())-1].Body
	if summaries == 0 || !strings.Contains(string(last), "each was acknowledged") {
		t.Fatalf("%d summaries; the last request:\n%s", summaries, last)
	}
	res, err := Verify(st, info.ID)
	if err != nil || len(res.Rebuilt) != 6 || len(res.FromContext) != 6 {
		t.Fatalf("verify: %+v %v", res, err)
	}
}
