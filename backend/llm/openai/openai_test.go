package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/testtools"
)

const model = "test-model"

func setup(t *testing.T) (*scripted.Server, *Provider) {
	t.Helper()
	srv := scripted.New(t, scripted.Model{Name: model, ContextLength: 32768})
	return srv, New(srv.URL+"/v1", "sk-test")
}

func ask(msg string) llm.Request {
	return llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: msg}}}
}

func TestStreamTextReasoningUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply scripted.Reply
	}{
		{"reasoning_content", scripted.Reply{ReasoningField: "reasoning_content"}},
		{"reasoning", scripted.Reply{ReasoningField: "reasoning"}},
		{"think tags by word", scripted.Reply{ReasoningField: "think_tags"}},
		{"think tags by 1 byte", scripted.Reply{ReasoningField: "think_tags", ChunkBytes: 1}},
		{"think tags by 3 bytes", scripted.Reply{ReasoningField: "think_tags", ChunkBytes: 3}},
		{"think tags by 5 bytes", scripted.Reply{ReasoningField: "think_tags", ChunkBytes: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := setup(t)
			rep := tt.reply
			rep.Reasoning, rep.Text = "Let me think… about it.", "The answer is **42**."
			rep.PromptTokens, rep.OutputTokens, rep.CacheReadTokens, rep.ReasoningTokens = 1200, 30, 1024, 12
			srv.OnUser("q").Reply(rep)
			r := scripted.Collect(p.Stream(context.Background(), ask("q")))
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Reasoning != rep.Reasoning || r.Text != rep.Text {
				t.Errorf("reasoning %q text %q", r.Reasoning, r.Text)
			}
			want := llm.Usage{Model: model, InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 1024, ReasoningTokens: 12, CacheReported: true}
			if r.Usage == nil {
				t.Fatal("no usage")
			}
			got := *r.Usage
			got.DurationMS = 0
			if got != want {
				t.Errorf("usage %+v, want %+v", got, want)
			}
			if r.Stop != "stop" || r.Kinds[len(r.Kinds)-1] != llm.EventDone {
				t.Errorf("stop %q, events %v", r.Stop, r.Kinds)
			}
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	t.Parallel()
	calls := []llm.ToolCall{
		{ID: "call_a", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go","limit":20}`)},
		{ID: "call_b", Name: "grep", Arguments: json.RawMessage(`{"pattern":"func main"}`)},
	}
	for _, style := range []string{"", "late_id", "index0"} {
		t.Run("style "+style, func(t *testing.T) {
			t.Parallel()
			srv, p := setup(t)
			srv.OnUser("q").Reply(scripted.Reply{Text: "Reading.", ToolCalls: calls, ToolDeltas: style})
			r := scripted.Collect(p.Stream(context.Background(), ask("q")))
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if len(r.Calls) != 2 {
				t.Fatalf("calls %+v", r.Calls)
			}
			for i, c := range r.Calls {
				if c.ID != calls[i].ID || c.Name != calls[i].Name || string(c.Arguments) != string(calls[i].Arguments) {
					t.Errorf("call %d = %s %s %s, want %+v", i, c.ID, c.Name, c.Arguments, calls[i])
				}
			}
			if r.Stop != "tool_calls" || r.Text != "Reading." {
				t.Errorf("stop %q text %q", r.Stop, r.Text)
			}
		})
	}
}

func TestToolCallAccumulation(t *testing.T) {
	t.Parallel()
	idx := func(i int) *int { return &i }
	d := func(i *int, id, name, args string) toolDelta {
		td := toolDelta{Index: i, ID: id}
		td.Function.Name, td.Function.Arguments = name, args
		return td
	}
	tests := []struct {
		name   string
		deltas []toolDelta
		want   []string // id name args
	}{
		{"openai", []toolDelta{d(idx(0), "a", "f", ""), d(idx(0), "", "", `{"x":`), d(idx(1), "b", "g", ""), d(idx(0), "", "", `1}`), d(idx(1), "", "", `{}`)},
			[]string{`a f {"x":1}`, `b g {}`}},
		{"id on second delta", []toolDelta{d(idx(0), "", "f", `{"x"`), d(idx(0), "a", "", `:1}`)}, []string{`a f {"x":1}`}},
		{"index 0 reused", []toolDelta{d(idx(0), "a", "f", `{}`), d(idx(0), "b", "g", `{"y":2}`)}, []string{`a f {}`, `b g {"y":2}`}},
		{"no index", []toolDelta{d(nil, "a", "f", `{"x"`), d(nil, "", "", `:1}`), d(nil, "b", "g", `{}`)}, []string{`a f {"x":1}`, `b g {}`}},
		{"name repeated", []toolDelta{d(idx(0), "a", "f", `{`), d(idx(0), "a", "f", `}`)}, []string{`a f {}`}},
		{"malformed kept", []toolDelta{d(idx(0), "a", "f", `{"x": tru`)}, []string{`a f {"x": tru`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var acc toolCalls
			for _, x := range tt.deltas {
				acc.add(x)
			}
			var got []string
			for _, c := range acc.done() {
				got = append(got, c.ID+" "+c.Name+" "+string(c.Arguments))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToolFaults(t *testing.T) {
	t.Parallel()
	tools := []llm.ToolSpec{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object"}`)}}
	t.Run("malformed JSON passes through raw", func(t *testing.T) {
		t.Parallel()
		srv, p := setup(t)
		srv.OnUser("q").Reply(scripted.Reply{Fault: scripted.FaultBadToolJSON})
		req := ask("q")
		req.Tools = tools
		r := scripted.Collect(p.Stream(context.Background(), req))
		if r.Err != nil || len(r.Calls) != 1 {
			t.Fatalf("err %v calls %+v", r.Err, r.Calls)
		}
		if a := r.Calls[0].Arguments; json.Valid(a) || string(a) != `{"path":"README.md"` {
			t.Errorf("arguments %s, want the truncated JSON as sent", a)
		}
	})
	t.Run("unknown tool", func(t *testing.T) {
		t.Parallel()
		srv, p := setup(t)
		srv.OnUser("q").Reply(scripted.Reply{Fault: scripted.FaultUnknownTool})
		r := scripted.Collect(p.Stream(context.Background(), ask("q")))
		if r.Err != nil || len(r.Calls) != 1 || r.Calls[0].Name != scripted.UnknownToolName {
			t.Fatalf("err %v calls %+v", r.Err, r.Calls)
		}
	})
	t.Run("tool call as text", func(t *testing.T) {
		t.Parallel()
		srv, p := setup(t)
		srv.OnUser("q").Reply(scripted.Reply{Fault: scripted.FaultToolAsText})
		req := ask("q")
		req.Tools = tools
		r := scripted.Collect(p.Stream(context.Background(), req))
		if r.Err != nil || len(r.Calls) != 0 || !strings.Contains(r.Text, `<tool_call>`) {
			t.Fatalf("err %v calls %+v text %q", r.Err, r.Calls, r.Text)
		}
	})
}

func TestRequestShape(t *testing.T) {
	t.Parallel()
	srv, p := setup(t)
	srv.OnUser("go").Reply(scripted.Reply{Text: "ok"})
	temp := 0.2
	req := llm.Request{Model: model, MaxTokens: 100, Temperature: &temp,
		Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: "look", Images: [][]byte{[]byte("\x89PNG\r\n\x1a\n0000")}},
			{Role: llm.RoleAssistant, Reasoning: "hidden", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"x"`)}}},
			{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "read_file", Content: "error: bad JSON"},
			{Role: llm.RoleUser, Content: "go"},
		}}
	if r := scripted.Collect(p.Stream(context.Background(), req)); r.Err != nil || r.Text != "ok" {
		t.Fatalf("%+v", r)
	}
	c := srv.Chats()[0]
	if c.Format != "openai" || c.Path != "/v1/chat/completions" || c.Header.Get("Authorization") != "Bearer sk-test" || !c.Stream {
		t.Errorf("call %s %s auth %q stream %v", c.Format, c.Path, c.Header.Get("Authorization"), c.Stream)
	}
	var body map[string]any
	json.Unmarshal(c.Body, &body)
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v", body["stream_options"])
	}
	if body["max_tokens"] != 100.0 || body["temperature"] != 0.2 {
		t.Errorf("max_tokens %v temperature %v", body["max_tokens"], body["temperature"])
	}
	got := c.Request
	if len(got.Messages) != 5 || len(got.Messages[1].Images) != 1 || got.Messages[3].ToolCallID != "c1" ||
		string(got.Messages[2].ToolCalls[0].Arguments) != `{"path":"x"` || got.Messages[2].Reasoning != "" {
		t.Errorf("messages as the server read them: %+v", got.Messages)
	}
	if len(got.Tools) != 1 || got.Tools[0].Description != "Read a file." {
		t.Errorf("tools %+v", got.Tools)
	}
	if !strings.Contains(string(c.Body), `"content":null`) || !strings.Contains(string(c.Body), `data:image/png;base64,`) {
		t.Errorf("body %s", c.Body)
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
		{name: "401", reply: scripted.Reply{Status: 401}, kind: llm.ErrAuth, status: 401},
		{name: "403", reply: scripted.Reply{Status: 403, Error: "forbidden"}, kind: llm.ErrAuth, status: 403},
		{name: "unknown model", model: "nope", kind: llm.ErrModelNotFound, status: 404},
		{name: "429 retry-after", reply: scripted.Reply{Fault: scripted.FaultRateLimit, RetryAfter: 3 * time.Second}, kind: llm.ErrRateLimited, status: 429, retryAfter: 3 * time.Second},
		{name: "429 quota", reply: scripted.Reply{Status: 429, Error: "You exceeded your current quota"}, kind: llm.ErrRateLimited, status: 429},
		{name: "400 context", reply: scripted.Reply{Status: 400}, kind: llm.ErrContextOverflow, status: 400},
		{name: "400 vllm context", reply: scripted.Reply{Status: 400, Error: "This model's maximum context length is 4096 tokens."}, kind: llm.ErrContextOverflow, status: 400},
		{name: "400 llama.cpp", reply: scripted.Reply{Status: 400, Error: "the request exceeds the available context size, try increasing it"}, kind: llm.ErrContextOverflow, status: 400},
		{name: "400 too long", reply: scripted.Reply{Status: 400, Error: "Input is too long for requested model."}, kind: llm.ErrContextOverflow, status: 400},
		{name: "413", reply: scripted.Reply{Status: 413, Error: "Request Entity Too Large"}, kind: llm.ErrContextOverflow, status: 413},
		{name: "400 other", reply: scripted.Reply{Status: 400, Error: "invalid 'temperature'"}, kind: llm.ErrBadRequest, status: 400},
		{name: "500", reply: scripted.Reply{Fault: scripted.FaultServerError}, kind: llm.ErrServer, status: 500},
		{name: "503", reply: scripted.Reply{Status: 503}, kind: llm.ErrServer, status: 503},
		{name: "529", reply: scripted.Reply{Fault: scripted.FaultOverloaded}, kind: llm.ErrServer, status: 529, retryAfter: time.Second},
		{name: "cut", reply: scripted.Reply{Text: "one two three", Fault: scripted.FaultCut}, kind: llm.ErrServer},
		{name: "cut mid-reply", reply: scripted.Reply{Text: "one two three", Fault: scripted.FaultCut, After: 2}, kind: llm.ErrServer},
		{name: "reset", reply: scripted.Reply{Text: "one two three", Fault: scripted.FaultReset, After: 1}, kind: llm.ErrServer},
		{name: "reset before body", reply: scripted.Reply{Text: "one", Fault: scripted.FaultReset}, kind: llm.ErrServer},
		{name: "error in stream", reply: scripted.Reply{Text: "one", ErrorInStream: "CUDA out of memory"}, kind: llm.ErrServer},
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
			var e *llm.Error
			if !asError(r.Err, &e) {
				t.Fatalf("err = %v, want an *llm.Error", r.Err)
			}
			if e.Kind != tt.kind || e.StatusCode != tt.status || e.RetryAfter != tt.retryAfter || e.Provider != ProviderName {
				t.Errorf("error %+v, want kind %s status %d retry after %v", e, tt.kind, tt.status, tt.retryAfter)
			}
			if e.Kind != llm.ErrBadRequest && e.Hint == "" {
				t.Errorf("no hint: %v", e)
			}
			if r.Stop != "" {
				t.Errorf("done event before the error")
			}
		})
	}
}

func asError(err error, e **llm.Error) bool {
	var le *llm.Error
	ok := err != nil && llm.KindOf(err) != ""
	if ok {
		le = err.(*llm.Error)
		*e = le
	}
	return ok
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	srv := scripted.New(nil)
	url := srv.URL
	srv.Close()
	p := New(url+"/v1", "")
	if r := scripted.Collect(p.Stream(context.Background(), ask("q"))); llm.KindOf(r.Err) != llm.ErrUnreachable {
		t.Errorf("stream: %v", r.Err)
	}
	if _, err := p.Models(context.Background()); llm.KindOf(err) != llm.ErrUnreachable {
		t.Errorf("models: %v", err)
	}
	if _, err := New("ftp://x", "").Models(context.Background()); llm.KindOf(err) != llm.ErrUnreachable {
		t.Errorf("bad URL: %v", err)
	}
}

func TestCancellation(t *testing.T) {
	t.Parallel()
	gone := func(cs []scripted.Call) bool {
		return len(cs) > 0 && cs[len(cs)-1].Outcome == scripted.OutcomeClientGone
	}
	t.Run("break cancels the request", func(t *testing.T) {
		t.Parallel()
		srv, p := setup(t)
		srv.OnUser("q").Reply(scripted.Reply{Text: scripted.LongText(200), Hold: make(chan struct{})})
		for ev, err := range p.Stream(context.Background(), ask("q")) {
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind == llm.EventText {
				break
			}
		}
		if _, err := srv.Wait(t.Context(), gone); err != nil {
			t.Fatal(err)
		}
	})
	for _, tt := range []struct {
		name  string
		reply scripted.Reply
	}{
		{"mid-stream", scripted.Reply{Text: scripted.LongText(200), Hold: make(chan struct{})}},
		{"slow first byte", scripted.Reply{Text: "late", Fault: scripted.FaultSlowFirstByte, Delay: time.Hour}},
	} {
		t.Run("context "+tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := setup(t)
			srv.OnUser("q").Reply(tt.reply)
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				srv.Wait(t.Context(), func(cs []scripted.Call) bool { return len(cs) > 0 })
				cancel()
			}()
			r := scripted.Collect(p.Stream(ctx, ask("q")))
			if llm.KindOf(r.Err) != llm.ErrInterrupted {
				t.Fatalf("err %v, want interrupted", r.Err)
			}
			if _, err := srv.Wait(t.Context(), gone); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSlowFirstByteAnswers(t *testing.T) {
	t.Parallel()
	srv, p := setup(t)
	srv.OnUser("q").Reply(scripted.Reply{Text: "late but fine", Fault: scripted.FaultSlowFirstByte, Delay: 10 * time.Millisecond})
	if r := scripted.Collect(p.Stream(context.Background(), ask("q"))); r.Err != nil || r.Text != "late but fine" {
		t.Fatalf("%+v", r)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	srv, p := setup(t)
	srv.SetModels(scripted.Model{Name: "a", ContextLength: 4096}, scripted.Model{Name: "b"})
	models, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 || models[0].Name != "a" || models[0].ContextLength != 4096 || models[1].ContextLength != 0 || models[0].Provider != ProviderName {
		t.Errorf("models %+v", models)
	}
	// A base URL without /v1 gets it; one with the wrong path is reported as such.
	if _, err := New(srv.URL, "").Models(context.Background()); err != nil {
		t.Errorf("bare URL: %v", err)
	}
	_, err = New(srv.URL+"/v1/nope", "").Models(context.Background())
	if e, ok := err.(*llm.Error); !ok || e.Kind != llm.ErrUnreachable || !strings.Contains(e.Hint, "/v1") {
		t.Errorf("wrong path: %v", err)
	}
}

func TestModelContextFields(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		entry string
		want  int
	}{
		{`{"id":"m","context_length":131072}`, 131072},
		{`{"id":"m","max_model_len":32768}`, 32768},
		{`{"id":"m","meta":{"n_ctx_train":8192}}`, 8192},
		{`{"id":"m","top_provider":{"context_length":200000}}`, 200000},
		{`{"id":"m"}`, 0},
	} {
		var m map[string]any
		json.Unmarshal([]byte(tt.entry), &m)
		if got := modelContext(m); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.entry, got, tt.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(time.Minute).Format(http.TimeFormat)}}, time.Minute},
		{http.Header{"Retry-After": {"7"}, "Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	} {
		if got := llm.RetryAfter(tt.h, now); got != tt.want {
			t.Errorf("%v: %v, want %v", tt.h, got, tt.want)
		}
	}
}

// A model list without end was held whole by the decoder until the process ran out of memory
// (fatal): a list past llm.MaxListBody is refused. This one ends 8 MB past the bound.
func TestModelListIsBounded(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	chunk := strings.Repeat("a", 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"data":[{"id":"`)
		for range (llm.MaxListBody >> 20) + 8 {
			io.WriteString(w, chunk)
		}
		io.WriteString(w, `"}]}`)
	}))
	defer srv.Close()
	_, err := New(srv.URL+"/v1", "").Models(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the answer is over 32 MB") {
		t.Fatalf("%v, want the list refused", err)
	}
}
