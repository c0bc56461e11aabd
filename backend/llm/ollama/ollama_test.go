package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/testtools"
)

// waitLimit only keeps a broken test from hanging; no assertion depends on it.
const waitLimit = 30 * time.Second

var (
	plain    = scripted.Model{Name: "plain:latest", ContextLength: 8192}
	thinker  = scripted.Model{Name: "thinker:latest", ContextLength: 8192, Capabilities: []llm.Capability{llm.CapThinking}}
	toolUser = scripted.Model{Name: "tooluser:latest", ContextLength: 8192, Capabilities: []llm.Capability{llm.CapTools}}
)

func start(t *testing.T, models ...scripted.Model) (*scripted.Server, *ollama.Provider) {
	t.Helper()
	srv := scripted.New(t, models...)
	return srv, ollama.New(srv.URL)
}

func userReq(model, msg string) llm.Request {
	return llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: msg}}}
}

// collect drains a stream, returning its events and the error that ended it.
func collect(s llm.Stream) ([]llm.Event, error) {
	var events []llm.Event
	for ev, err := range s {
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
	return events, nil
}

func joined(events []llm.Event, kind llm.EventKind) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Kind == kind {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

// kinds returns the event kinds with consecutive repeats folded.
func kinds(events []llm.Event) []llm.EventKind {
	var out []llm.EventKind
	for _, ev := range events {
		if len(out) == 0 || out[len(out)-1] != ev.Kind {
			out = append(out, ev.Kind)
		}
	}
	return out
}

func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func asError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	return e
}

func TestStreamEvents(t *testing.T) {
	t.Parallel()
	both := scripted.Model{Name: "both:latest", ContextLength: 8192, Capabilities: []llm.Capability{llm.CapTools, llm.CapThinking}}
	tests := []struct {
		name      string
		model     scripted.Model
		think     bool
		reply     scripted.Reply
		wantKinds []llm.EventKind
		wantText  string
		wantReas  string
		wantCalls []llm.ToolCall // IDs checked only when set
	}{
		{
			name:      "text in word chunks",
			model:     plain,
			reply:     scripted.Reply{Text: "Hello there, streaming world."},
			wantKinds: []llm.EventKind{llm.EventText, llm.EventUsage, llm.EventDone},
			wantText:  "Hello there, streaming world.",
		},
		{
			name:      "reasoning before text",
			model:     thinker,
			think:     true,
			reply:     scripted.Reply{Reasoning: "Let me think it over.", Text: "Forty-two.", Chunks: 2},
			wantKinds: []llm.EventKind{llm.EventReasoning, llm.EventText, llm.EventUsage, llm.EventDone},
			wantText:  "Forty-two.",
			wantReas:  "Let me think it over.",
		},
		{
			name:  "tool calls without ids get ids",
			model: toolUser,
			reply: scripted.Reply{Text: "Searching.", ToolCalls: []llm.ToolCall{
				{Name: "search", Arguments: json.RawMessage(`{"query":"tofu","limit":3}`)},
				{Name: "read", Arguments: json.RawMessage(`{"path":"a.md"}`)},
			}},
			wantKinds: []llm.EventKind{llm.EventText, llm.EventToolCall, llm.EventUsage, llm.EventDone},
			wantText:  "Searching.",
			wantCalls: []llm.ToolCall{
				{Name: "search", Arguments: json.RawMessage(`{"query":"tofu","limit":3}`)},
				{Name: "read", Arguments: json.RawMessage(`{"path":"a.md"}`)},
			},
		},
		{
			name:  "tool call id kept",
			model: both,
			reply: scripted.Reply{ToolCalls: []llm.ToolCall{
				{ID: "call_7", Name: "search", Arguments: json.RawMessage(`{"query":"x"}`)},
			}},
			wantKinds: []llm.EventKind{llm.EventToolCall, llm.EventUsage, llm.EventDone},
			wantCalls: []llm.ToolCall{{ID: "call_7", Name: "search", Arguments: json.RawMessage(`{"query":"x"}`)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := start(t, tt.model)
			rep := tt.reply
			rep.PromptTokens, rep.OutputTokens = 123, 45
			srv.Default(rep)
			req := userReq(tt.model.Name, "question")
			req.Think = tt.think
			req.Tools = []llm.ToolSpec{{Name: "search", Description: "Search.", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)}}

			events, err := collect(p.Stream(t.Context(), req))
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			want := tt.wantKinds
			if !slices.Contains(tt.model.Capabilities, llm.CapTools) {
				// Tools were offered to a model that cannot use them: the caller is told first.
				want = append([]llm.EventKind{llm.EventNotice}, want...)
				if !strings.Contains(events[0].Text, "does not support tools") {
					t.Errorf("notice = %q", events[0].Text)
				}
			}
			if got := kinds(events); !equalKinds(got, want) {
				t.Errorf("event kinds = %v, want %v", got, want)
			}
			if got := joined(events, llm.EventText); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			if got := joined(events, llm.EventReasoning); got != tt.wantReas {
				t.Errorf("reasoning = %q, want %q", got, tt.wantReas)
			}

			var calls []llm.ToolCall
			ids := map[string]bool{}
			for _, ev := range events {
				if ev.Kind == llm.EventToolCall {
					calls = append(calls, *ev.ToolCall)
					ids[ev.ToolCall.ID] = true
				}
			}
			if len(calls) != len(tt.wantCalls) {
				t.Fatalf("got %d tool calls, want %d", len(calls), len(tt.wantCalls))
			}
			for i, want := range tt.wantCalls {
				got := calls[i]
				if got.Name != want.Name || !sameJSON(t, got.Arguments, want.Arguments) {
					t.Errorf("call %d = %s %s, want %s %s", i, got.Name, got.Arguments, want.Name, want.Arguments)
				}
				if got.ID == "" || (want.ID != "" && got.ID != want.ID) {
					t.Errorf("call %d id = %q, want %q (or any non-empty)", i, got.ID, want.ID)
				}
			}
			if len(ids) != len(calls) {
				t.Errorf("tool call ids are not unique: %v", ids)
			}

			usage := events[len(events)-2].Usage
			if usage == nil || usage.InputTokens != 123 || usage.OutputTokens != 45 || usage.ContextWindow != 8192 || usage.Model != tt.model.Name {
				t.Errorf("usage = %+v, want 123 in, 45 out, window 8192, model %s", usage, tt.model.Name)
			}
			if done := events[len(events)-1]; done.StopReason != "stop" {
				t.Errorf("stop reason = %q, want stop", done.StopReason)
			}
		})
	}
}

func equalKinds(a, b []llm.EventKind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("bad JSON %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("bad JSON %s: %v", b, err)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

func TestNumCtxFixedPerModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		ctxLen    int
		opts      []ollama.Option
		requested int
		want      int
	}{
		{name: "small model runs at its length", ctxLen: 8192, want: 8192},
		{name: "large model capped", ctxLen: 131072, want: ollama.DefaultContextCap},
		{name: "unknown length", ctxLen: 0, want: ollama.UnknownContextWindow},
		{name: "custom cap", ctxLen: 131072, opts: []ollama.Option{ollama.WithContextCap(16384)}, want: 16384},
		{name: "custom cap below unknown default", ctxLen: 0, opts: []ollama.Option{ollama.WithContextCap(4096)}, want: 4096},
		{name: "caller budget", ctxLen: 131072, requested: 12000, want: 12000},
		{name: "caller budget clamped to model", ctxLen: 4096, requested: 12000, want: 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := scripted.Model{Name: "m:latest", ContextLength: tt.ctxLen}
			srv := scripted.New(t, m)
			srv.Default(scripted.Reply{Text: "ok"})
			p := ollama.New(srv.URL, tt.opts...)
			for _, msg := range []string{"first", "second, a bit longer than the first", "third"} {
				req := userReq("m", msg) // the short name resolves to m:latest
				req.ContextWindow = tt.requested
				if _, err := collect(p.Stream(t.Context(), req)); err != nil {
					t.Fatalf("stream: %v", err)
				}
			}
			chats := srv.Chats()
			if len(chats) != 3 {
				t.Fatalf("server saw %d chats, want 3", len(chats))
			}
			for i, c := range chats {
				if got := c.NumCtx(); got != tt.want {
					t.Errorf("chat %d: num_ctx = %d, want %d (body %s)", i, got, tt.want, c.Body)
				}
			}
			if tt.requested == 0 {
				models, err := p.Models(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if models[0].ContextWindow != tt.want || models[0].ContextLength != tt.ctxLen {
					t.Errorf("Models: window %d length %d, want %d and %d", models[0].ContextWindow, models[0].ContextLength, tt.want, tt.ctxLen)
				}
			}
		})
	}
}

func TestThinkFlagOnlyWhenCapable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		model scripted.Model
		think bool
		want  *bool
	}{
		{name: "capable, asked", model: thinker, think: true, want: new(true)},
		{name: "capable, not asked: explicit false", model: thinker, think: false, want: new(false)},
		{name: "not capable, asked: left out", model: plain, think: true, want: nil},
		{name: "not capable, not asked", model: plain, think: false, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := start(t, tt.model)
			srv.Default(scripted.Reply{Text: "ok"})
			req := userReq(tt.model.Name, "hi")
			req.Think = tt.think
			if _, err := collect(p.Stream(t.Context(), req)); err != nil {
				t.Fatalf("stream: %v", err)
			}
			got := srv.Chats()[0].Think
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("think = %v, want %v (body %s)", fmtBool(got), fmtBool(tt.want), srv.Chats()[0].Body)
			}
		})
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "absent"
	}
	if *b {
		return "true"
	}
	return "false"
}

func TestToolsOnlyWhenCapable(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","required":["query"],"properties":{"query":{"type":"string","description":"What to find"},"limit":{"type":"integer"}}}`)
	tests := []struct {
		name      string
		model     scripted.Model
		wantTools bool
	}{
		{name: "capable", model: toolUser, wantTools: true},
		{name: "not capable: dropped", model: plain, wantTools: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := start(t, tt.model)
			srv.Default(scripted.Reply{Text: "ok"})
			req := userReq(tt.model.Name, "find tofu")
			req.Tools = []llm.ToolSpec{{Name: "search", Description: "Search the library.", Parameters: schema}}
			if _, err := collect(p.Stream(t.Context(), req)); err != nil {
				t.Fatalf("stream: %v", err)
			}
			got := srv.Chats()[0].Request.Tools
			if !tt.wantTools {
				if len(got) != 0 {
					t.Errorf("tools sent to a model without tool support: %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Name != "search" || got[0].Description != "Search the library." {
				t.Fatalf("tools = %+v", got)
			}
			if !sameJSON(t, got[0].Parameters, schema) {
				t.Errorf("schema = %s, want %s", got[0].Parameters, schema)
			}
		})
	}
}

func TestStreamErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		model    string // requested model; the server has plain and toolUser
		reply    scripted.Reply
		kind     llm.ErrorKind
		hint     string // substring of the hint
		message  string // substring of Error()
		wantText string // text yielded before the error
	}{
		{
			name: "model missing", model: "nope", kind: llm.ErrModelNotFound,
			hint: "`ollama pull nope`", message: `"nope" is not installed`,
		},
		{
			name: "server error", model: plain.Name,
			reply: scripted.Reply{Status: 500, Error: "llama runner process has terminated: signal: killed"},
			kind:  llm.ErrServer, hint: "server log", message: "llama runner process has terminated",
		},
		{
			name: "does not support tools", model: toolUser.Name,
			reply: scripted.Reply{Status: 400, Error: "registry.ollama.ai/library/tooluser:latest does not support tools"},
			kind:  llm.ErrBadRequest, hint: "cannot call tools", message: "does not support tools",
		},
		{
			name: "busy", model: plain.Name,
			reply: scripted.Reply{Status: 503, Error: "server busy, please try again.  maximum pending requests exceeded"},
			kind:  llm.ErrRateLimited, hint: "OLLAMA_MAX_QUEUE",
		},
		{
			name: "server-side truncation", model: plain.Name,
			reply: scripted.Reply{Status: 500, Error: "no user query found in messages"},
			kind:  llm.ErrContextOverflow, hint: "new session",
		},
		{
			name: "dies mid-stream", model: plain.Name,
			reply: scripted.Reply{Text: "one two three four five", DieAfter: 2},
			kind:  llm.ErrServer, message: "stopped mid-reply", hint: "server log", wantText: "one two ",
		},
		{
			name: "error inside the stream", model: plain.Name,
			reply: scripted.Reply{Text: "partial answer", ErrorInStream: "CUDA error: out of memory"},
			kind:  llm.ErrServer, message: "stopped mid-reply: CUDA error: out of memory", wantText: "partial answer",
		},
		{
			name: "overflow reported inside the stream", model: plain.Name,
			reply: scripted.Reply{ErrorInStream: "the input length exceeds the context length"},
			kind:  llm.ErrContextOverflow, hint: "new session",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := start(t, plain, toolUser)
			srv.Default(tt.reply)
			events, err := collect(p.Stream(t.Context(), userReq(tt.model, "hi")))
			if err == nil {
				t.Fatalf("stream succeeded with %d events, want %s error", len(events), tt.kind)
			}
			e := asError(t, err)
			if e.Kind != tt.kind || e.Provider != "ollama" {
				t.Errorf("kind = %s (provider %q), want %s: %v", e.Kind, e.Provider, tt.kind, err)
			}
			if !strings.Contains(e.Hint, tt.hint) {
				t.Errorf("hint = %q, want it to contain %q", e.Hint, tt.hint)
			}
			if !strings.Contains(e.Error(), tt.message) {
				t.Errorf("error = %q, want it to contain %q", e.Error(), tt.message)
			}
			if got := joined(events, llm.EventText); got != tt.wantText {
				t.Errorf("text before the error = %q, want %q", got, tt.wantText)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	p := ollama.New(closedURL(t))
	calls := map[string]func() error{
		"Stream": func() error { _, err := collect(p.Stream(t.Context(), userReq("any", "hi"))); return err },
		"Models": func() error { _, err := p.Models(t.Context()); return err },
		"Status": func() error { _, err := p.Status(t.Context()); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := asError(t, call())
			if e.Kind != llm.ErrUnreachable || !strings.Contains(e.Hint, "ollama serve") || !strings.Contains(e.Hint, "OLLAMA_HOST") {
				t.Errorf("got %s %q (hint %q), want unreachable with a hint to start Ollama", e.Kind, e.Error(), e.Hint)
			}
		})
	}
}

func TestBadBaseURL(t *testing.T) {
	t.Parallel()
	_, err := ollama.New("ftp://example").Models(t.Context())
	if e := asError(t, err); e.Kind != llm.ErrUnreachable || !strings.Contains(e.Hint, "base URL") {
		t.Errorf("got %s %v, want unreachable about the base URL", e.Kind, err)
	}
}

func TestContextOverflowRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	small := scripted.Model{Name: "small:latest", ContextLength: 2048}
	tests := []struct {
		name    string
		req     llm.Request
		opts    []ollama.Option
		refused bool
	}{
		{name: "fits", req: userReq(small.Name, strings.Repeat("word ", 200))},
		{name: "long message", req: userReq(small.Name, strings.Repeat("word ", 2000)), refused: true},
		{
			name: "reply reserve counts",
			req:  llm.Request{Model: small.Name, MaxTokens: 1900, Messages: userReq("", strings.Repeat("word ", 200)).Messages},
			// 200 words is ~370 estimated tokens; with 1900 for the reply it no longer fits 2048
			refused: true,
		},
		{
			name: "replaceable estimator", req: userReq(small.Name, "short"),
			opts:    []ollama.Option{ollama.WithTokenEstimator(func(llm.Request) int { return 5000 })},
			refused: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, small)
			srv.Default(scripted.Reply{Text: "ok"})
			p := ollama.New(srv.URL, tt.opts...)
			_, err := collect(p.Stream(t.Context(), tt.req))
			if !tt.refused {
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				return
			}
			e := asError(t, err)
			if e.Kind != llm.ErrContextOverflow || !strings.Contains(e.Message, "2048") {
				t.Errorf("got %s %q, want context overflow naming the 2048-token window", e.Kind, e.Message)
			}
			if n := len(srv.Chats()); n != 0 {
				t.Errorf("server received %d chat requests, want none", n)
			}
		})
	}
}

func TestEstimateTokensIsConservative(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		min  int // a real BPE count or more
	}{
		{name: "english", text: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 100), min: 1000},
		{name: "code", text: strings.Repeat("func f(x int) error { return nil }\n", 100), min: 1100},
		{name: "cjk", text: strings.Repeat("豆腐研究助手", 100), min: 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ollama.EstimateTokens(userReq("m", tt.text)); got < tt.min {
				t.Errorf("estimate = %d, want at least %d", got, tt.min)
			}
		})
	}
}

func TestBreakCancelsRequest(t *testing.T) {
	t.Parallel()
	srv, p := start(t, plain)
	srv.Default(scripted.Reply{Text: scripted.LongText(2000), Hold: make(chan struct{})})

	n := 0
	for ev, err := range p.Stream(t.Context(), userReq(plain.Name, "talk")) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if ev.Kind == llm.EventText {
			n++
			break
		}
	}
	if n != 1 {
		t.Fatalf("got %d text events before breaking, want 1", n)
	}
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	calls, err := srv.Wait(ctx, func(calls []scripted.Call) bool {
		for _, c := range calls {
			if c.IsChat() && c.Outcome != scripted.OutcomePending {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the server never saw the request end: %v", err)
	}
	for _, c := range calls {
		if c.IsChat() && c.Outcome != scripted.OutcomeClientGone {
			t.Errorf("chat outcome = %q, want %q", c.Outcome, scripted.OutcomeClientGone)
		}
	}
}

func TestCancelIsInterrupted(t *testing.T) {
	t.Parallel()
	srv, p := start(t, plain)
	srv.Default(scripted.Reply{Text: scripted.LongText(2000), Hold: make(chan struct{})})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	var gotErr error
	texts := 0
	for ev, err := range p.Stream(ctx, userReq(plain.Name, "talk")) {
		if err != nil {
			gotErr = err
			break
		}
		if ev.Kind == llm.EventText {
			texts++
			cancel() // keep ranging: the stream must end with ErrInterrupted
		}
		if ev.Kind == llm.EventDone {
			t.Fatal("the stream ran to the end despite the cancellation")
		}
	}
	if e := asError(t, gotErr); e.Kind != llm.ErrInterrupted {
		t.Errorf("kind = %s (%v), want interrupted", e.Kind, gotErr)
	}
	if texts == 0 {
		t.Error("no text before the cancellation")
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	vision := scripted.Model{Name: "seer:7b", ContextLength: 65536, ParameterSize: "7B", Family: "qwen2", Size: 4 << 30,
		Capabilities: []llm.Capability{llm.CapVision, llm.CapTools, llm.CapThinking}}
	srv, p := start(t, plain, vision)

	models, err := p.Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 {
		t.Fatalf("got %d models, want 2", len(models))
	}
	got := models[1]
	if got.Name != "seer:7b" || got.Provider != "ollama" || got.ContextLength != 65536 || got.ContextWindow != 32768 ||
		got.Family != "qwen2" || got.ParameterSize != "7B" || got.SizeBytes != 4<<30 {
		t.Errorf("model = %+v", got)
	}
	for _, c := range []llm.Capability{llm.CapVision, llm.CapTools, llm.CapThinking} {
		if !got.Has(c) {
			t.Errorf("missing capability %s in %v", c, got.Capabilities)
		}
	}
	if p0 := models[0]; len(p0.Capabilities) != 0 || p0.ContextLength != 8192 {
		t.Errorf("plain model = %+v", p0)
	}

	shows := func() int {
		n := 0
		for _, c := range srv.Calls() {
			if c.Path == "/api/show" {
				n++
			}
		}
		return n
	}
	if _, err := p.Models(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := shows(); n != 2 {
		t.Errorf("after listing twice: %d /api/show calls, want 2 (cached)", n)
	}
	// A re-pulled model has a new digest and is described again.
	vision.Digest, vision.ContextLength = "sha256:new", 16384
	srv.SetModels(plain, vision)
	models, err = p.Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n := shows(); n != 3 {
		t.Errorf("after a digest change: %d /api/show calls, want 3", n)
	}
	if models[1].ContextLength != 16384 {
		t.Errorf("context length after re-pull = %d, want 16384", models[1].ContextLength)
	}

	info, err := p.Model(t.Context(), "seer:7b")
	if err != nil || info.ContextWindow != 16384 {
		t.Errorf("Model = %+v, %v", info, err)
	}
	if _, err := p.Model(t.Context(), "nope"); llm.KindOf(err) != llm.ErrModelNotFound {
		t.Errorf("Model(nope) = %v, want model not found", err)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		models []scripted.Model
		kind   llm.ErrorKind
		hint   string
	}{
		{name: "models", models: []scripted.Model{plain}},
		{name: "no models", kind: llm.ErrNoModels, hint: "ollama pull"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, p := start(t, tt.models...)
			models, err := p.Status(t.Context())
			if tt.kind == "" {
				if err != nil || len(models) != len(tt.models) {
					t.Fatalf("Status = %d models, %v", len(models), err)
				}
				return
			}
			e := asError(t, err)
			if e.Kind != tt.kind || !strings.Contains(e.Hint, tt.hint) {
				t.Errorf("got %s (hint %q), want %s with %q", e.Kind, e.Hint, tt.kind, tt.hint)
			}
		})
	}
}

func TestRequestOptionsAndHistory(t *testing.T) {
	t.Parallel()
	srv, p := start(t, toolUser)
	srv.Default(scripted.Reply{Text: "ok"})
	temp := 0.2
	req := llm.Request{
		Model:       toolUser.Name,
		MaxTokens:   512,
		Temperature: &temp,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: "find tofu"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "search", Arguments: json.RawMessage(`{"query":"tofu"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", ToolName: "search", Content: "3 results"},
		},
	}
	if _, err := collect(p.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	c := srv.Chats()[0]
	got := c.Request
	if got.MaxTokens != 512 || got.Temperature == nil || *got.Temperature != 0.2 || !c.Stream {
		t.Errorf("options = %+v, stream %v", c.Options, c.Stream)
	}
	if len(got.Messages) != 4 {
		t.Fatalf("messages = %+v", got.Messages)
	}
	call := got.Messages[2].ToolCalls
	if len(call) != 1 || call[0].ID != "call_1" || call[0].Name != "search" || !sameJSON(t, call[0].Arguments, json.RawMessage(`{"query":"tofu"}`)) {
		t.Errorf("assistant tool call = %+v", call)
	}
	if tm := got.Messages[3]; tm.ToolCallID != "call_1" || tm.ToolName != "search" || tm.Content != "3 results" {
		t.Errorf("tool message = %+v", tm)
	}
	var raw map[string]any
	if err := json.Unmarshal(c.Body, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["truncate"] != false || raw["shift"] != false {
		t.Errorf("truncate = %v, shift = %v; want both false so Ollama never drops context silently", raw["truncate"], raw["shift"])
	}
}

// An answer without end to the model list was read whole by the client until the process ran
// out of memory (fatal): answers read whole are refused past llm.MaxListBody. This one ends
// 8 MB past the bound.
func TestModelListIsBounded(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	chunk := strings.Repeat("a", 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"models":[{"name":"`)
		for range (llm.MaxListBody >> 20) + 8 {
			io.WriteString(w, chunk)
		}
		io.WriteString(w, `"}]}`)
	}))
	defer srv.Close()
	_, err := ollama.New(srv.URL).Models(t.Context())
	if err == nil || !strings.Contains(err.Error(), "the answer is over 32 MB") {
		t.Fatalf("%v, want the list refused", err)
	}
}
