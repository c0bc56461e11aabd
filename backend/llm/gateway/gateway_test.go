package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

func fastPolicy() router.Option {
	return router.WithPolicy(router.Policy{MaxAttempts: 2, BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond, Jitter: -1})
}

func collect(t *testing.T, s llm.Stream) (text string, kinds []llm.EventKind, err error) {
	t.Helper()
	var b strings.Builder
	for ev, e := range s {
		if e != nil {
			return b.String(), kinds, e
		}
		kinds = append(kinds, ev.Kind)
		switch ev.Kind {
		case llm.EventText:
			b.WriteString(ev.Text)
		case llm.EventRetry, llm.EventFallback:
			b.Reset()
		}
	}
	return b.String(), kinds, nil
}

func TestRoutesByReferenceAndFormat(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel()).ScriptDemo()
	cfg := config.Config{Providers: []config.Provider{
		{Name: "local", Type: config.TypeOllama, BaseURL: srv.URL},
		{Name: "oai", Type: config.TypeOpenAI, BaseURL: srv.URL + "/v1"},
		{Name: "ant", Type: config.TypeAnthropic, BaseURL: srv.URL},
	}}
	keys := map[string][]string{"oai": {"sk-oai-1"}, "ant": {"sk-ant-1"}}
	g, err := New(cfg, func(p string) []string { return keys[p] }, fastPolicy())
	if err != nil {
		t.Fatal(err)
	}
	models, err := g.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range models {
		names = append(names, m.Provider+"="+m.Name)
	}
	want := "local=tofu-test:latest,oai=oai/tofu-test:latest,ant=ant/tofu-test:latest"
	if strings.Join(names, ",") != want {
		t.Fatalf("models = %v, want %s", names, want)
	}

	for _, tc := range []struct{ ref, format, provider string }{
		{"tofu-test:latest", "ollama", "local"},
		{"oai/tofu-test:latest", "openai", "oai"},
		{"ant/tofu-test:latest", "anthropic", "ant"},
	} {
		text, _, err := collect(t, g.Stream(context.Background(), llm.Request{
			Model: tc.ref, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi " + tc.format}},
		}))
		if err != nil {
			t.Fatalf("%s: %v", tc.ref, err)
		}
		if text != scripted.EchoText("hi "+tc.format) {
			t.Errorf("%s: text %q", tc.ref, text)
		}
		chats := srv.Chats()
		last := chats[len(chats)-1]
		if last.Format != tc.format || last.Request.Model != "tofu-test:latest" {
			t.Errorf("%s: reached %s with model %q", tc.ref, last.Format, last.Request.Model)
		}
		if g.ProviderOf(tc.ref) != tc.provider {
			t.Errorf("ProviderOf(%s) = %s", tc.ref, g.ProviderOf(tc.ref))
		}
	}
	// The API key went in the provider's header.
	for _, c := range srv.Chats() {
		h := c.Header.Get("Authorization") + c.Header.Get("X-Api-Key")
		switch c.Format {
		case "openai":
			if h != "Bearer sk-oai-1" {
				t.Errorf("openai auth header %q", h)
			}
		case "anthropic":
			if h != "sk-ant-1" {
				t.Errorf("anthropic key header %q", h)
			}
		}
	}
}

func TestFallsBackWhenTheModelKeepsFailing(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel(), scripted.Model{Name: "broken:latest", ContextLength: 8192}).ScriptDemo()
	srv.On(func(r llm.Request) bool { return r.Model == "broken:latest" }).Reply(scripted.Reply{Status: 500, Error: "model crashed"})
	cfg := config.Config{
		Providers: []config.Provider{
			{Name: "local", Type: config.TypeOllama, BaseURL: srv.URL},
			{Name: "backup", Type: config.TypeOpenAI, BaseURL: srv.URL + "/v1"},
		},
		Fallback: []string{"backup/tofu-test:latest"},
	}
	var reports []router.CallReport
	g, err := New(cfg, nil, fastPolicy(), router.WithReport(func(r router.CallReport) { reports = append(reports, r) }))
	if err != nil {
		t.Fatal(err)
	}
	text, kinds, err := collect(t, g.Stream(context.Background(), llm.Request{
		Model: "broken:latest", Messages: []llm.Message{{Role: llm.RoleUser, Content: "still there?"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if text != scripted.EchoText("still there?") || kinds[0] != llm.EventFallback {
		t.Fatalf("text %q, events %v", text, kinds)
	}
	if len(reports) != 1 || reports[0].Fallback != 1 || reports[0].Outcome != "ok" {
		t.Fatalf("report = %+v", reports)
	}
}

func TestModelsReportsAnUnreachableFirstProvider(t *testing.T) {
	t.Parallel()
	g, err := New(config.Config{Providers: []config.Provider{{Name: "ollama", Type: config.TypeOllama, BaseURL: "http://127.0.0.1:1"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Models(context.Background())
	if llm.KindOf(err) != llm.ErrUnreachable {
		t.Fatalf("err = %v", err)
	}

	srv := scripted.New(t, scripted.DemoModel())
	g, _ = New(config.Config{Providers: []config.Provider{
		{Name: "ollama", Type: config.TypeOllama, BaseURL: "http://127.0.0.1:1"},
		{Name: "other", Type: config.TypeOllama, BaseURL: srv.URL},
	}}, nil)
	models, err := g.Models(context.Background())
	var partial *PartialError
	if len(models) != 1 || models[0].Name != "other/tofu-test:latest" || !errors.As(err, &partial) || llm.KindOf(err) != llm.ErrUnreachable {
		t.Fatalf("models %+v, err %v", models, err)
	}
}

func TestInvalidConfig(t *testing.T) {
	t.Parallel()
	if _, err := New(config.Config{}, nil); err == nil {
		t.Fatal("an empty configuration was accepted")
	}
	bad := config.Config{Providers: []config.Provider{{Name: "ollama", Type: config.TypeOllama}}, OllamaKeepAlive: "a while"}
	if _, err := New(bad, nil); err == nil || !strings.Contains(err.Error(), "ollama_keep_alive") {
		t.Fatalf("keep_alive %q: err %v", bad.OllamaKeepAlive, err)
	}
}

// The user's ollama_keep_alive reaches every chat to an Ollama provider.
func TestKeepAliveSettingIsSent(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.DemoModel())
	srv.Default(scripted.Reply{Text: "hello"})
	g, err := New(config.Config{Providers: []config.Provider{{Name: "ollama", Type: config.TypeOllama, BaseURL: srv.URL}},
		OllamaKeepAlive: "2h"}, nil, fastPolicy())
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range g.Stream(context.Background(), llm.Request{Model: "tofu-test", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	chats := srv.Chats()
	if len(chats) != 1 || !strings.Contains(string(chats[0].Body), `"keep_alive":"2h0m0s"`) {
		t.Fatalf("chats %+v", chats)
	}
}

func TestToolCallsPrintedAsTextBecomeCalls(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Model{Name: "qwen2.5:7b", ContextLength: 8192, Capabilities: []llm.Capability{llm.CapTools}})
	srv.Default(scripted.Reply{Text: `Let me read it. <tool_call>{"name": "read_files", "arguments": {"reads": [{"path": "a.go"}]}}</tool_call>`})
	g, _ := New(config.Config{Providers: []config.Provider{{Name: "ollama", Type: config.TypeOllama, BaseURL: srv.URL}}}, nil, fastPolicy())
	var calls []llm.ToolCall
	var text strings.Builder
	for ev, err := range g.Stream(context.Background(), llm.Request{
		Model: "qwen2.5:7b", Messages: []llm.Message{{Role: llm.RoleUser, Content: "read a.go"}},
		Tools: []llm.ToolSpec{{Name: "read_files", Parameters: []byte(`{"type":"object"}`)}},
	}) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case llm.EventToolCall:
			calls = append(calls, *ev.ToolCall)
		case llm.EventText:
			text.WriteString(ev.Text)
		}
	}
	if len(calls) != 1 || calls[0].Name != "read_files" || !strings.Contains(string(calls[0].Arguments), "a.go") {
		t.Fatalf("calls = %+v (text %q)", calls, text.String())
	}
	if strings.Contains(text.String(), "tool_call") {
		t.Fatalf("the call stayed in the text: %q", text.String())
	}
}
