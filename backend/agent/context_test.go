package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// bigTools answers every call with a large output (a long command log), a different one for
// each call (the same output twice would be sent as a reference to the first).
type bigTools struct{ fakeTools }

func (b *bigTools) Run(ctx context.Context, c tools.Call) (tools.Result, error) {
	b.fakeTools.Run(ctx, c)
	return tools.Result{Text: string(c.Arguments) + "\n" + strings.Repeat("line of build output\n", 3000)}, nil // 63 KB
}

func TestContextManagerInTheLoop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	n := 0
	e.model.DefaultFunc(func(r llm.Request) scripted.Reply {
		if toolResults(r) >= 6 {
			return scripted.Reply{Text: "done"}
		}
		n++
		return scripted.Reply{ToolCalls: []llm.ToolCall{call(string(rune('a'+n)), "read", `{"path":"`+string(rune('a'+n))+`"}`)}}
	})
	mem := compact.NewMemStore()
	// Six calls are too few for the cost model to rewrite the cache for the last outputs; this
	// test is about the wiring, so moves are priced without a cache.
	cfg := compact.Defaults()
	cfg.L1.CachePrice = 0
	mgr := compact.NewManager(cfg, mem, compact.State{})
	e.say(t, "build it")
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: &bigTools{}, Context: mgr})
	if end.Reason != "done" {
		t.Fatalf("end = %+v", end)
	}
	// L0: every output entered the log as a preview with a reference; the whole is stored.
	res := e.results(t)
	ref := compact.RefIn(res[0].Text)
	if len(res) != 6 || len(res[0].Text) > 8000 || ref == "" {
		t.Fatalf("first result (%d bytes): %.300q", len(res[0].Text), res[0].Text)
	}
	if full, err := mem.Get(ref); err != nil || len(full) < 63000 {
		t.Fatalf("stored output: %d bytes, %v", len(full), err)
	}
	// L1: the last request carried cold results as placeholders, not in full, and the moves
	// of the view are in the log.
	chats := e.model.Chats()
	last := chats[len(chats)-1].Request
	var b strings.Builder
	for _, m := range last.Messages {
		b.WriteString(m.Content)
	}
	if strings.Count(b.String(), "line of build output") >= 6*100 {
		t.Fatalf("old outputs were sent whole (%d bytes)", b.Len())
	}
	evs, _ := e.st.Events(e.sess)
	if st := ContextState(evs); st.Mark == 0 {
		t.Fatalf("no context_state recorded: %s", e.types())
	}
}

func TestOverflowIsRetriedHarder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(func(llm.Request) bool { return true }).Times(1).Reply(scripted.Reply{Status: 500, Error: "the input length exceeds the context length"})
	e.model.Default(scripted.Reply{Text: "fits now"})
	e.say(t, "question")
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName,
		Context: compact.NewManager(compact.Defaults(), compact.NewMemStore(), compact.State{})})
	if end.Reason != "done" {
		t.Fatalf("end = %+v (%s)", end, e.types())
	}
	if got := e.types(); strings.Contains(got, "error") || !strings.Contains(got, "notice,assistant") {
		t.Fatalf("events = %s", got)
	}
	if len(e.model.Chats()) != 2 {
		t.Fatalf("%d calls", len(e.model.Chats()))
	}
	// Without a context manager the overflow is the turn's error.
	e2 := newEnv(t)
	e2.model.Default(scripted.Reply{Status: 500, Error: "the input length exceeds the context length"})
	e2.say(t, "question")
	if end := e2.agent.Run(context.Background(), Turn{Session: e2.sess, Model: scripted.DemoModelName}); end.Reason != "error" || llm.KindOf(end.Err) != llm.ErrContextOverflow {
		t.Fatalf("end = %+v", end)
	}
}

// cutTools answer like run_command past its cap: Text the output's head and tail, Full the
// whole (args {"size":n}: n lines), with a marker in the middle that only Full holds.
type cutTools struct{ fakeTools }

func (c *cutTools) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	c.fakeTools.Run(ctx, call)
	n := 9000
	if strings.Contains(string(call.Arguments), "small") {
		n = 400
	}
	lines := strings.Repeat("collected test line\n", n/2) + "MIDDLE-MARKER\n" + strings.Repeat("collected test line\n", n/2)
	full := lines + "[exit 1 · 5.1s]"
	return tools.Result{Text: lines[:1000] + "\n[… bytes of output omitted …]\n" + lines[len(lines)-2000:] + "[exit 1 · 5.1s]", Full: full}, nil
}

// TestWholeOutputIsStored: read_result kept 30,000 characters of a 152 KB command output
// under "full output stored" (the end marker a model grepped for was not there). What L0
// stores is the whole output the tool kept; an output whose whole fits the budget is shown as
// the tool cut it.
func TestWholeOutputIsStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{call("c1", "read", `{"path":"big"}`), call("c2", "read", `{"path":"small"}`)},
	})
	e.model.Default(scripted.Reply{Text: "done"})
	mem := compact.NewMemStore()
	e.say(t, "run the tests")
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: &cutTools{},
		Context: compact.NewManager(compact.Defaults(), mem, compact.State{})})
	if end.Reason != "done" {
		t.Fatalf("end = %+v", end)
	}
	res := e.results(t)
	ref := compact.RefIn(res[0].Text)
	full, err := mem.Get(ref)
	if ref == "" || err != nil || !strings.Contains(full, "MIDDLE-MARKER") || !strings.HasSuffix(full, "[exit 1 · 5.1s]") || len(full) < 180_000 {
		t.Fatalf("stored %d bytes (%v), result %.200q", len(full), err, res[0].Text)
	}
	if !strings.Contains(res[0].Text, "180,") || !strings.HasSuffix(strings.TrimSpace(res[0].Text), "to see more]") {
		t.Errorf("the preview does not tell the whole output's size: %.300q", res[0].Text)
	}
	if strings.Contains(res[1].Text, "MIDDLE-MARKER") || compact.RefIn(res[1].Text) != "" {
		t.Errorf("an output whose whole fits the budget: %q", res[1].Text)
	}
}

// sizedTools answer "read" with a result of about n characters (500 for a path with
// "small"), different per call.
type sizedTools struct {
	fakeTools
	n int
}

func (s *sizedTools) Run(ctx context.Context, c tools.Call) (tools.Result, error) {
	s.fakeTools.Run(ctx, c)
	n := s.n
	if strings.Contains(string(c.Arguments), "small") {
		n = 500
	}
	return tools.Result{Text: string(c.Arguments) + "\n" + strings.Repeat("a line of a long file\n", n/22)}, nil
}

// TestOverflowShrinksTheNewestResult: with a small window, a turn whose newest tool result
// alone overflowed ended in error after "compacting harder (1 of 2)… (2 of 2)": L1 keeps the
// hot tail whole and L0 applies at entry, so the retries sent the same result. The retry
// shows it as its preview and reference, and the turn goes on without overflowing again.
func TestOverflowShrinksTheNewestResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const window = 12_000 // characters of one message the scripted provider accepts
	overflows := 0
	e.model.DefaultFunc(func(r llm.Request) scripted.Reply {
		for _, m := range r.Messages {
			if len(m.Content) > window {
				overflows++
				return scripted.Reply{Status: 400, Error: "the input length exceeds the context length"}
			}
		}
		switch toolResults(r) {
		case 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{call("c1", "read", `{"path":"big.txt"}`)}}
		case 1:
			return scripted.Reply{ToolCalls: []llm.ToolCall{call("c2", "read", `{"path":"small.txt"}`)}}
		}
		return scripted.Reply{Text: "done"}
	})
	mem := compact.NewMemStore()
	e.say(t, "summarize big.txt")
	tl := &sizedTools{n: 18_000} // within the default L0 budget (20,000): entered whole
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: tl,
		Context: compact.NewManager(compact.Defaults(), mem, compact.State{})})
	if end.Reason != "done" {
		t.Fatalf("end = %+v (%s)", end, e.types())
	}
	// The demo model's window refuses the request before it is sent, or the provider does.
	retries := overflows
	evs, _ := e.st.Events(e.sess)
	for _, ev := range evs {
		var n store.Notice
		if ev.Type == store.EventNotice && ev.Decode(&n) == nil && strings.Contains(n.Text, "compacting harder") {
			retries++
		}
	}
	if retries != 1 {
		t.Errorf("%d retries, want 1 (the shrunk result stays shrunk)", retries)
	}
	chats := e.model.Chats()
	last := chats[len(chats)-1].Request
	var shown string
	for _, m := range last.Messages {
		if m.Role == llm.RoleTool && strings.Contains(m.Content, "big.txt") {
			shown = m.Content
		}
	}
	ref := compact.RefIn(shown)
	if full, err := mem.Get(ref); ref == "" || err != nil || len(full) < 17_000 || len(shown) > 3_000 {
		t.Fatalf("the big result as sent (%d chars, ref %q, stored %d): %.200q", len(shown), ref, len(full), shown)
	}
}
