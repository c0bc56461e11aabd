package compact

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// turns returns a conversation of n user turns, each with a tool step; the last turn is the
// in-flight one.
func turns(n int) []llm.Message {
	conv := []llm.Message{{Role: llm.RoleSystem, Content: "You are Tofu."}}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("t%d", i)
		conv = append(conv,
			llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("Request %d: fix bug_%d in parser.go", i, i)},
			llm.Message{Role: llm.RoleAssistant, Content: "Looking.", ToolCalls: []llm.ToolCall{{ID: id, Name: "grep", Arguments: []byte(`{"pattern":"bug"}`)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "grep", Content: bigOutput(i, 4000)},
			llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("Fixed bug_%d.", i)},
		)
	}
	return conv
}

func TestSummarize(t *testing.T) {
	srv := scripted.New(t, scripted.DemoModel())
	srv.On(func(r llm.Request) bool {
		return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "CRITICAL (3)")
	}).Reply(scripted.Reply{Text: "<analysis>rating turns</analysis>\n1. Primary Request\nFix bugs in parser.go.\n6. All User Messages\nRequest 0..."})
	p := ollama.New(srv.URL)
	conv := turns(8)
	cfg := Defaults()
	window := 32_000 // usable 20k (32k less 8k and 4k reserves): the preserve budget (30%) holds about one turn
	c, usage, err := Summarize(context.Background(), p, scripted.DemoModelName, conv, window, cfg, "auto")
	if err != nil {
		t.Fatal(err)
	}
	chats := srv.Chats()
	if len(chats) != 1 {
		t.Fatalf("%d summariser calls", len(chats))
	}
	req := chats[0].Request
	for _, want := range []string{"CRITICAL", "USEFUL", "TANGENTIAL", "IRRELEVANT", "All User Messages"} {
		if !strings.Contains(req.Messages[0].Content, want) {
			t.Fatalf("summary prompt lacks %q", want)
		}
	}
	if !strings.Contains(req.Messages[1].Content, "## Current User Query\nRequest 7") ||
		!strings.Contains(req.Messages[1].Content, "Request 0: fix bug_0") {
		t.Fatalf("summariser input:\n%s", clip(req.Messages[1].Content, 600))
	}
	// The call's usage is returned to be logged like a turn's call, marked as the summary's,
	// with the provider's figures and Tofu's own count of what was sent, and no window.
	sent, _, _, _ := SummaryRequest(scripted.DemoModelName, conv, window, cfg)
	if usage == nil || usage.Purpose != SummaryPurpose || usage.InputTokens <= 0 || usage.OutputTokens <= 0 ||
		usage.LocalInputTokens != tokens.CountRequest(sent) || usage.LocalOutputTokens <= 0 ||
		usage.ContextWindow != 0 || usage.Model != scripted.DemoModelName {
		t.Fatalf("summary usage: %+v", usage)
	}
	if strings.Contains(c.Summary, "<analysis>") || !strings.HasPrefix(c.Summary, "1. Primary Request") {
		t.Fatalf("summary: %q", c.Summary)
	}
	// The in-flight turn (from the last user message) is kept whole, system first.
	inflight := len(conv) - 4
	if c.From != 1 || c.To > inflight || c.To <= c.From {
		t.Fatalf("range %d..%d", c.From, c.To)
	}
	view := Apply(conv, &c, "<instructions>use tabs</instructions>")
	if !reflect.DeepEqual(view[len(view)-4:], conv[inflight:]) || view[0].Content != "You are Tofu." {
		t.Fatal("in-flight turn or system prompt not kept whole")
	}
	sum := view[1].Content
	if !strings.Contains(sum, "Context compacted") || !strings.HasSuffix(sum, "<instructions>use tabs</instructions>") {
		t.Fatalf("summary message: %q", sum)
	}
	if c.TokensAfter >= c.TokensBefore || c.ID == "" || c.Trigger != "auto" {
		t.Fatalf("compaction: %+v", c)
	}
	// Reversible: undo (no compaction) or a log that changed gives the raw view back.
	if !reflect.DeepEqual(Apply(conv, nil, ""), conv) {
		t.Fatal("undo does not restore the raw view")
	}
	changed := append([]llm.Message(nil), conv...)
	changed[2].Content = "edited"
	if !reflect.DeepEqual(Apply(changed, &c, ""), changed) {
		t.Fatal("a compaction applied to a log it does not match")
	}
	// Trigger threshold.
	if ShouldSummarize(17_000, window, cfg.L2) || !ShouldSummarize(18_500, window, cfg.L2) {
		t.Fatal("trigger at 90% of usable")
	}
	if _, u, err := Summarize(context.Background(), p, scripted.DemoModelName, conv[:5], window, cfg, "auto"); !errors.Is(err, ErrNothingToSummarize) || u != nil {
		t.Fatalf("one turn: %v (usage %v)", err, u)
	}
}

func TestHarder(t *testing.T) {
	c := Defaults()
	h1 := Harder(c)
	h2 := Harder(h1)
	if h1.Level != 1 || h2.Level != 2 || h1.L1.EpochTokens != 0 || !h1.L1.Assistant {
		t.Fatalf("harder: %+v", h1)
	}
	if !(h2.L1.HotTokens <= h1.L1.HotTokens && h1.L1.HotTokens < c.L1.HotTokens && h1.L1.MinChars < c.L1.MinChars &&
		h1.L0.CommandChars < c.L0.CommandChars && h2.L2.MaxPreserveTurns < c.L2.MaxPreserveTurns) {
		t.Fatalf("not more aggressive: %+v / %+v", h1.L1, h2.L1)
	}
	// Harder sends fewer tokens on the same conversation.
	conv := midConv()
	_, r0 := Build(conv, nil, c)
	_, r1 := Build(conv, nil, h1)
	_, r2 := Build(conv, nil, h2)
	if !(r2.Tokens <= r1.Tokens && r1.Tokens < r0.Tokens) {
		t.Fatalf("tokens %d, %d, %d", r0.Tokens, r1.Tokens, r2.Tokens)
	}
}

// L3 on an injected overflow: the scripted model refuses requests over a limit; Retry rebuilds
// harder and succeeds, or gives up with the overflow after MaxOverflowRetries retries.
func TestRetryOnOverflow(t *testing.T) {
	model := scripted.DemoModel()
	model.ContextLength = 128_000
	srv := scripted.New(t, model)
	limit := 0
	size := func(msgs []llm.Message) int {
		n := 0
		for _, m := range msgs {
			n += len(m.Content)
		}
		return n
	}
	srv.On(func(r llm.Request) bool { return size(r.Messages) > limit }).
		Reply(scripted.Reply{Status: 400, Error: "the input length exceeds the context length"})
	srv.Default(scripted.Reply{Text: "done"})
	p := ollama.New(srv.URL)
	conv := midConv()
	m := NewManager(Defaults(), NewMemStore(), State{})
	send := func(ctx context.Context, retry int, cfg Config) error {
		req := llm.Request{Model: scripted.DemoModelName, Messages: conv}
		if _, err := m.PrepareWith(&req, cfg); err != nil {
			return err
		}
		for _, err := range p.Stream(ctx, req) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	base, _ := Build(conv, nil, Defaults())
	hard, _ := Build(conv, nil, Harder(Defaults()))
	limit = (size(base) + size(hard)) / 2 // fits after one retry
	calls := len(srv.Chats())
	if err := Retry(context.Background(), Defaults(), send); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n := len(srv.Chats()) - calls; n != 2 {
		t.Fatalf("%d calls, want 2 (one overflow, one retry)", n)
	}
	if m.State() != (State{}) {
		t.Fatal("a retry moved the session's own state")
	}
	limit = 10 // never fits: the first try and exactly two retries, then the overflow
	calls = len(srv.Chats())
	err := Retry(context.Background(), Defaults(), send)
	if !IsOverflow(err) {
		t.Fatalf("err = %v, want a context overflow", err)
	}
	if n := len(srv.Chats()) - calls; n != 1+MaxOverflowRetries {
		t.Fatalf("%d calls, want %d", n, 1+MaxOverflowRetries)
	}
}

// midConv is growing(30) with mid-size results, which only a harder configuration compacts.
func midConv() []llm.Message {
	conv := growing(30)
	for i, m := range conv {
		if m.Role == llm.RoleTool && len(m.Content) < 1000 {
			conv[i].Content = bigOutput(i, 1000)
		}
	}
	return conv
}

func TestSecondSummaryCoversTheFirst(t *testing.T) {
	srv := scripted.New(t, scripted.DemoModel())
	n := 0
	srv.DefaultFunc(func(llm.Request) scripted.Reply { n++; return scripted.Reply{Text: fmt.Sprintf("SUMMARY %d", n)} })
	p := ollama.New(srv.URL)
	cfg := Defaults()
	conv := turns(6)
	first, _, err := Summarize(context.Background(), p, scripted.DemoModelName, conv, 32_000, cfg, "auto")
	if err != nil {
		t.Fatal(err)
	}
	// The session goes on; the second summary reads the view (with the first summary) and is
	// mapped back onto the raw conversation.
	conv = append(conv, turns(5)[1:]...)
	view := Apply(conv, &first, "")
	second, _, err := Summarize(context.Background(), p, scripted.DemoModelName, view, 32_000, cfg, "auto")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(srv.Chats()[1].Request.Messages[1].Content, "SUMMARY 1") {
		t.Fatal("the second summariser did not read the first summary")
	}
	raw, ok := second.Over(conv, &first)
	if !ok || raw.From != first.From || raw.To <= first.To || !raw.Matches(conv) || raw.ID == second.ID {
		t.Fatalf("over: %v %+v (first %d..%d)", ok, raw, first.From, first.To)
	}
	// The raw messages the two replaced are gone from the new view, the kept turns are whole.
	got := Apply(conv, &raw, "")
	if !reflect.DeepEqual(got[2:], conv[raw.To:]) || !strings.Contains(got[1].Content, "SUMMARY 2") {
		t.Fatal("the chained compaction's view is wrong")
	}
	// A summary alone in the range is not summarized again.
	alone := []llm.Message{got[1], {Role: llm.RoleUser, Content: "now"}}
	cfg.L2.MaxPreserveTurns = 0
	if _, _, err := Summarize(context.Background(), p, scripted.DemoModelName, alone, 32_000, cfg, "auto"); !errors.Is(err, ErrNothingToSummarize) {
		t.Fatalf("err = %v", err)
	}
}
