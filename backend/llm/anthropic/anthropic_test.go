package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

const model = "claude-test-4"

func setup(t *testing.T) (*scripted.Server, *Provider) {
	t.Helper()
	srv := scripted.New(t, scripted.Model{Name: model})
	return srv, New(srv.URL, "sk-ant-test")
}

func ask(msg string) llm.Request {
	return llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: msg}}}
}

func TestStreamThinkingTextUsage(t *testing.T) {
	t.Parallel()
	srv, p := setup(t)
	srv.OnUser("q").Reply(scripted.Reply{Reasoning: "Think it through.", Signature: "sig-1", Text: "Done, **fine**.",
		PromptTokens: 50, OutputTokens: 20, CacheReadTokens: 1000, CacheWriteTokens: 200})
	req := ask("q")
	req.Think = true
	r := scripted.Collect(p.Stream(context.Background(), req))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Reasoning != "Think it through." || r.Signature != "sig-1" || r.Text != "Done, **fine**." || r.Stop != "stop" {
		t.Errorf("%+v", r)
	}
	got := *r.Usage
	got.DurationMS = 0
	if want := (llm.Usage{Model: model, InputTokens: 1250, OutputTokens: 20, CacheReadTokens: 1000, CacheWriteTokens: 200, CacheReported: true}); got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
	c := srv.Chats()[0]
	if c.Format != "anthropic" || c.Header.Get("x-api-key") != "sk-ant-test" || c.Header.Get("anthropic-version") != APIVersion {
		t.Errorf("call %s headers %v", c.Format, c.Header)
	}
	var body messagesRequest
	json.Unmarshal(c.Body, &body)
	if body.Thinking == nil || body.Thinking.BudgetTokens != DefaultThinkingBudget || body.MaxTokens <= DefaultThinkingBudget || !body.Stream {
		t.Errorf("thinking %+v max_tokens %d", body.Thinking, body.MaxTokens)
	}
}

func TestToolUse(t *testing.T) {
	t.Parallel()
	srv, p := setup(t)
	calls := []llm.ToolCall{{ID: "toolu_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"main.go"}`)},
		{ID: "toolu_2", Name: "grep", Arguments: json.RawMessage(`{"pattern":"x"}`)}}
	srv.OnUser("q").Reply(scripted.Reply{Text: "Looking.", ToolCalls: calls})
	srv.OnUser("bad").Reply(scripted.Reply{Fault: scripted.FaultBadToolJSON})
	r := scripted.Collect(p.Stream(context.Background(), ask("q")))
	if r.Err != nil || len(r.Calls) != 2 || r.Stop != "tool_calls" {
		t.Fatalf("%+v", r)
	}
	for i, c := range r.Calls {
		if c.ID != calls[i].ID || c.Name != calls[i].Name || string(c.Arguments) != string(calls[i].Arguments) {
			t.Errorf("call %d %+v", i, c)
		}
	}
	r = scripted.Collect(p.Stream(context.Background(), ask("bad")))
	if r.Err != nil || len(r.Calls) != 1 || json.Valid(r.Calls[0].Arguments) {
		t.Errorf("malformed input should pass through raw: %+v", r)
	}
}

func TestRequestMapping(t *testing.T) {
	t.Parallel()
	srv, p := setup(t)
	srv.OnUser("next").Reply(scripted.Reply{Text: "ok"})
	req := llm.Request{Model: model, CachePrefix: "1h",
		Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read.", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are Tofu."},
			{Role: llm.RoleUser, Content: "read two files"},
			{Role: llm.RoleAssistant, Reasoning: "two calls", ReasoningSignature: "sig", ToolCalls: []llm.ToolCall{
				{ID: "t1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)},
				{ID: "t2", Name: "read_file", Arguments: json.RawMessage(`{"path":`)}}},
			{Role: llm.RoleTool, ToolCallID: "t1", Content: "A"},
			{Role: llm.RoleTool, ToolCallID: "t2", Content: "error: bad arguments"},
			{Role: llm.RoleAssistant, Reasoning: "unsigned, dropped", Content: "Both read."},
			{Role: llm.RoleUser, Content: "next"},
		},
		CacheBreakpoints: []llm.CacheBreakpoint{{MessageIndex: 1, TTL: "1h"}, {MessageIndex: 2}, {MessageIndex: 4}, {MessageIndex: 6}},
	}
	if r := scripted.Collect(p.Stream(context.Background(), req)); r.Err != nil || r.Text != "ok" {
		t.Fatalf("%+v", r)
	}
	c := srv.Chats()[0]
	var body messagesRequest
	if err := json.Unmarshal(c.Body, &body); err != nil {
		t.Fatal(err)
	}
	roles := ""
	for _, m := range body.Messages {
		roles += m.Role[:1]
		for _, b := range m.Content {
			roles += ":" + b.Type
			if b.CacheControl != nil {
				roles += "*" + b.CacheControl.TTL
			}
		}
		roles += " "
	}
	// Four breakpoints at most: the prefix, then the latest ones (messages 6, 4 and 2).
	want := "u:text a:thinking:tool_use:tool_use* u:tool_result:tool_result* a:text u:text* "
	if roles != want {
		t.Errorf("messages\n%s\nwant\n%s", roles, want)
	}
	if len(body.System) != 1 || body.System[0].CacheControl == nil || body.System[0].CacheControl.TTL != "1h" || body.System[0].Text != "You are Tofu." {
		t.Errorf("system %+v", body.System[0])
	}
	if in := body.Messages[1].Content[2].Input; string(in) != `{}` {
		t.Errorf("malformed arguments replayed as %s, want {}", in)
	}
	if c.Header.Get("anthropic-beta") == "" {
		t.Errorf("1h TTL without its beta header")
	}
	if got := c.Request.Messages; got[2].ReasoningSignature != "sig" || got[4].ToolCallID != "t2" {
		t.Errorf("as the server read it: %+v", got)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reply      scripted.Reply
		model      string
		kind       llm.ErrorKind
		status     int
		retryAfter time.Duration
	}{
		{name: "401", reply: scripted.Reply{Status: 401, Error: "invalid x-api-key"}, kind: llm.ErrAuth, status: 401},
		{name: "403", reply: scripted.Reply{Status: 403, Error: "no"}, kind: llm.ErrAuth, status: 403},
		{name: "unknown model", model: "claude-nope", kind: llm.ErrModelNotFound, status: 404},
		{name: "429", reply: scripted.Reply{Fault: scripted.FaultRateLimit, RetryAfter: 20 * time.Second}, kind: llm.ErrRateLimited, status: 429, retryAfter: 20 * time.Second},
		{name: "prompt too long", reply: scripted.Reply{Status: 400}, kind: llm.ErrContextOverflow, status: 400},
		{name: "413", reply: scripted.Reply{Status: 413, Error: "Request exceeds the maximum allowed number of bytes."}, kind: llm.ErrContextOverflow, status: 413},
		{name: "400 other", reply: scripted.Reply{Status: 400, Error: "messages: roles must alternate"}, kind: llm.ErrBadRequest, status: 400},
		{name: "500", reply: scripted.Reply{Fault: scripted.FaultServerError}, kind: llm.ErrServer, status: 500},
		{name: "529 overloaded", reply: scripted.Reply{Fault: scripted.FaultOverloaded}, kind: llm.ErrServer, status: 529, retryAfter: time.Second},
		{name: "overloaded in stream", reply: scripted.Reply{Text: "a b", ErrorInStream: "Overloaded"}, kind: llm.ErrServer, status: 529},
		{name: "cut", reply: scripted.Reply{Text: "a b c", Fault: scripted.FaultCut}, kind: llm.ErrServer},
		{name: "cut mid-block", reply: scripted.Reply{Text: "a b c", Fault: scripted.FaultCut, After: 1}, kind: llm.ErrServer},
		{name: "reset", reply: scripted.Reply{Text: "a b c", Fault: scripted.FaultReset, After: 2}, kind: llm.ErrServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := setup(t)
			srv.OnUser("q").Reply(tt.reply)
			req := ask("q")
			if tt.model != "" {
				req.Model = tt.model
			}
			r := scripted.Collect(p.Stream(context.Background(), req))
			e, ok := r.Err.(*llm.Error)
			if !ok {
				t.Fatalf("err = %v", r.Err)
			}
			if e.Kind != tt.kind || e.StatusCode != tt.status || e.RetryAfter != tt.retryAfter || e.Provider != ProviderName {
				t.Errorf("error %+v, want %s %d %v", e, tt.kind, tt.status, tt.retryAfter)
			}
			if e.Kind != llm.ErrBadRequest && e.Hint == "" {
				t.Errorf("no hint: %v", e)
			}
			if r.Stop != "" {
				t.Error("done before the error")
			}
		})
	}
}

func TestCancellation(t *testing.T) {
	t.Parallel()
	srv, p := setup(t)
	srv.OnUser("q").Reply(scripted.Reply{Text: scripted.LongText(200), Hold: make(chan struct{})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for ev, err := range p.Stream(ctx, ask("q")) {
		if err != nil {
			if llm.KindOf(err) != llm.ErrInterrupted {
				t.Fatal(err)
			}
			break
		}
		if ev.Kind == llm.EventText {
			cancel()
		}
	}
	_, err := srv.Wait(t.Context(), func(cs []scripted.Call) bool {
		return len(cs) > 0 && cs[len(cs)-1].Outcome == scripted.OutcomeClientGone
	})
	if err != nil {
		t.Fatal(err)
	}
	// After cancelling, the stream ends with ErrInterrupted.
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		srv.Wait(t.Context(), func(cs []scripted.Call) bool { return len(cs) > 1 })
		cancel2()
	}()
	if r := scripted.Collect(p.Stream(ctx2, ask("q"))); llm.KindOf(r.Err) != llm.ErrInterrupted {
		t.Errorf("err %v", r.Err)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	srv, p := setup(t)
	srv.SetModels(scripted.Model{Name: "claude-sonnet-4-5"}, scripted.Model{Name: "claude-3-5-haiku"})
	models, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 || models[0].ContextLength != 200000 || !models[0].Has(llm.CapThinking) || models[1].Has(llm.CapThinking) {
		t.Errorf("%+v", models)
	}
	if c := srv.Calls()[0]; c.Format != "anthropic" || !strings.HasPrefix(c.Path, "/v1/models") {
		t.Errorf("call %+v", c)
	}
}
