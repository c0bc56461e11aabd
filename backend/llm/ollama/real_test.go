//go:build unix

package ollama_test

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/ollama/realollama"
)

// The contract tests: Tofu's provider against a real `ollama serve` (realollama) with two tiny
// models it makes, one whose template offers tools and one plain. They run under `make
// test-ollama`, which builds the server once and sets TOFU_OLLAMA_BIN; what they found the
// scripted server doing differently was fixed there (docs/PROVIDERS.md lists it).

const (
	toolsModel = "tiny-tools:latest"
	plainModel = "tiny-plain:latest"
	// realWindow is the num_ctx Tofu runs the tiny models with (their GGUF says 2048).
	realWindow = 1024
	// realLimit only keeps a broken test from hanging: a model load on a busy machine can take
	// a while. No assertion depends on it.
	realLimit = 5 * time.Minute
	// The server log's line for each model load (one runner process per load).
	logLoad = "starting llama server"
	logChat = `POST     "/api/chat"`
)

type realEnv struct {
	srv *realollama.Server
	p   *ollama.Provider
	api *api.Client
}

// startReal runs a server with both tiny models installed.
func startReal(t *testing.T, env ...string) realEnv {
	t.Helper()
	bin := realollama.Binary(t)
	srv := realollama.Start(t, bin, env...)
	ctx, cancel := context.WithTimeout(context.Background(), realLimit)
	defer cancel()
	if err := srv.Create(ctx, "tiny-tools", realollama.ToolsTemplate, realollama.DefaultTinyModel); err != nil {
		t.Fatal(err)
	}
	if err := srv.Create(ctx, "tiny-plain", realollama.PlainTemplate, realollama.DefaultTinyModel); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	return realEnv{srv: srv, p: ollama.New(srv.URL, ollama.WithContextCap(realWindow)), api: api.NewClient(u, http.DefaultClient)}
}

func realCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), realLimit)
	t.Cleanup(cancel)
	return ctx
}

func maxTokens(model string, n int) llm.Request {
	req := userReq(model, "Say something about tofu.")
	req.MaxTokens = n
	return req
}

// loaded is what /api/ps lists.
func (e realEnv) loaded(t *testing.T) []string {
	t.Helper()
	ps, err := e.api.ListRunning(realCtx(t))
	if err != nil {
		t.Fatalf("/api/ps: %v", err)
	}
	var names []string
	for _, m := range ps.Models {
		names = append(names, m.Name)
	}
	return names
}

// firstText reads s until its first text event, then hands the rest of the stream to the
// caller through next.
func firstText(t *testing.T, s llm.Stream) (next func() (llm.Event, error, bool), stop func()) {
	t.Helper()
	pull, stop := iter.Pull2(iter.Seq2[llm.Event, error](s))
	for {
		ev, err, ok := pull()
		if !ok || err != nil {
			stop()
			t.Fatalf("stream ended before any text: %v", err)
		}
		if ev.Kind == llm.EventText {
			return pull, stop
		}
	}
}

// drain reads the rest of a stream and returns the error that ended it.
func drain(next func() (llm.Event, error, bool)) error {
	for {
		_, err, ok := next()
		if !ok || err != nil {
			return err
		}
	}
}

func TestRealModelsAndCapabilities(t *testing.T) {
	e := startReal(t)
	ctx := realCtx(t)
	models, err := e.p.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]llm.ModelInfo{}
	for _, m := range models {
		byName[m.Name] = m
	}
	if len(models) != 2 {
		t.Fatalf("models %+v, want tiny-tools and tiny-plain", models)
	}
	tools, plain := byName[toolsModel], byName[plainModel]
	if !tools.Has(llm.CapTools) || plain.Has(llm.CapTools) {
		t.Errorf("tools capability from the template: tiny-tools %v, tiny-plain %v", tools.Capabilities, plain.Capabilities)
	}
	for _, m := range []llm.ModelInfo{tools, plain} {
		if m.ContextLength != realollama.DefaultTinyModel.ContextLength || m.ContextWindow != realWindow {
			t.Errorf("%s: context length %d, window %d", m.Name, m.ContextLength, m.ContextWindow)
		}
		if m.Family != "llama" || m.SizeBytes <= 0 || m.Provider != ollama.ProviderName {
			t.Errorf("%s: %+v", m.Name, m)
		}
	}
	// The short name finds the same model.
	info, err := e.p.Model(ctx, "tiny-tools")
	if err != nil || !info.Has(llm.CapTools) || info.ContextWindow != realWindow {
		t.Errorf("Model(tiny-tools) = %+v, %v", info, err)
	}
	if st, err := e.p.Status(ctx); err != nil || len(st) != 2 {
		t.Errorf("Status = %v, %v", st, err)
	}
}

func TestRealStreamedChat(t *testing.T) {
	e := startReal(t)
	ctx := realCtx(t)
	for _, tc := range []struct {
		model string
		tools []llm.ToolSpec
	}{
		{plainModel, nil},
		{toolsModel, []llm.ToolSpec{{Name: "read_file", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}},
	} {
		req := maxTokens(tc.model, 12)
		req.Tools = tc.tools
		events, err := collect(e.p.Stream(ctx, req))
		if err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		ks := kinds(events)
		if !slices.Equal(ks, []llm.EventKind{llm.EventText, llm.EventUsage, llm.EventDone}) {
			t.Fatalf("%s: event kinds %v", tc.model, ks)
		}
		last := events[len(events)-1]
		usage := events[len(events)-2].Usage
		// The tiny model never picks its end token, so num_predict is what stops it.
		if last.StopReason != "length" || usage.OutputTokens != 12 || usage.InputTokens <= 0 ||
			usage.ContextWindow != realWindow || usage.Model != tc.model {
			t.Errorf("%s: stop %q, usage %+v", tc.model, last.StopReason, usage)
		}
		if joined(events, llm.EventText) == "" {
			t.Errorf("%s: no text", tc.model)
		}
	}
}

// Every turn runs with the same num_ctx, so the model is loaded once; a different num_ctx
// reloads it, which shows the log line counted is the right one.
func TestRealNumCtxFixedNoReload(t *testing.T) {
	e := startReal(t)
	ctx := realCtx(t)
	for turn := 0; turn < 3; turn++ {
		if _, err := collect(e.p.Stream(ctx, maxTokens(plainModel, 4))); err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
	}
	if n := e.srv.Count(logLoad); n != 1 {
		t.Fatalf("three turns loaded the model %d times, want once", n)
	}
	if got := e.loaded(t); !slices.Equal(got, []string{plainModel}) {
		t.Errorf("/api/ps lists %v", got)
	}
	other := maxTokens(plainModel, 4)
	other.ContextWindow = realWindow / 2
	if _, err := collect(e.p.Stream(ctx, other)); err != nil {
		t.Fatal(err)
	}
	if n := e.srv.Count(logLoad); n != 2 {
		t.Errorf("a different num_ctx: %d loads, want 2", n)
	}
}

// A prompt over the window is refused by the provider: the server never sees the request.
func TestRealPromptTooLongNotSent(t *testing.T) {
	e := startReal(t)
	ctx := realCtx(t)
	req := userReq(plainModel, strings.Repeat("tofu is made of soy beans. ", 200))
	_, err := collect(e.p.Stream(ctx, req))
	if k := asError(t, err).Kind; k != llm.ErrContextOverflow {
		t.Fatalf("kind %v (%v), want context overflow", k, err)
	}
	// A request that fits goes through on the same server, so the log does show chats.
	if _, err := collect(e.p.Stream(ctx, maxTokens(plainModel, 2))); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.WaitLog(ctx, logChat, 1); err != nil {
		t.Fatal(err)
	}
	if n := e.srv.Count(logChat); n != 1 {
		t.Errorf("the server logged %d chat requests, want 1 (only the one that fits)", n)
	}
}

// Cancelling the context mid-reply is an interruption; breaking out of the loop is a quiet end.
// Either way the server stops generating and answers the next request.
func TestRealCancelMidStream(t *testing.T) {
	e := startReal(t)
	ctx := realCtx(t)

	cctx, cancel := context.WithCancel(ctx)
	next, stop := firstText(t, e.p.Stream(cctx, userReq(plainModel, "Go on forever.")))
	cancel()
	err := drain(next)
	stop()
	if k := asError(t, err).Kind; k != llm.ErrInterrupted {
		t.Fatalf("kind %v (%v), want interrupted", k, err)
	}

	_, stop = firstText(t, e.p.Stream(ctx, userReq(plainModel, "Go on forever.")))
	stop()

	events, err := collect(e.p.Stream(ctx, maxTokens(plainModel, 3)))
	if err != nil || events[len(events)-1].Kind != llm.EventDone {
		t.Fatalf("after the cancellations: %v, %v", kinds(events), err)
	}
	if n := e.srv.Count(logLoad); n != 1 {
		t.Errorf("the cancellations cost a reload: %d loads", n)
	}
}

// The server killed mid-reply: the stream fails as a server error, and the provider then
// reports the server unreachable.
func TestRealServerDiesMidStream(t *testing.T) {
	e := startReal(t)
	ctx := realCtx(t)
	next, stop := firstText(t, e.p.Stream(ctx, userReq(plainModel, "Go on forever.")))
	defer stop()
	e.srv.Kill()
	err := drain(next)
	le := asError(t, err)
	if le.Kind != llm.ErrServer {
		t.Fatalf("kind %v (%v), want server error", le.Kind, err)
	}
	_, err = e.p.Status(ctx)
	if k := asError(t, err).Kind; k != llm.ErrUnreachable {
		t.Errorf("after the crash: %v (%v), want unreachable", k, err)
	}
}

func TestRealMissingModel(t *testing.T) {
	e := startReal(t)
	ctx := realCtx(t)
	_, err := collect(e.p.Stream(ctx, userReq("absent", "hello")))
	le := asError(t, err)
	if le.Kind != llm.ErrModelNotFound || le.StatusCode != 404 {
		t.Errorf("stream: %v %d (%v)", le.Kind, le.StatusCode, err)
	}
	_, err = e.p.Model(ctx, "absent:7b")
	if k := asError(t, err).Kind; k != llm.ErrModelNotFound {
		t.Errorf("model: %v (%v)", k, err)
	}
	// What the server itself answers /api/chat for a model it does not have, past Tofu's
	// /api/show check (the scripted server says the same).
	err = e.api.Chat(ctx, &api.ChatRequest{Model: "absent", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil })
	t.Logf("real /api/chat for a missing model: %v", err)
}

// keep_alive 0 unloads the model (what `ollama stop` does); the next turn loads it again with the
// same window and answers.
func TestRealUnloadAndReload(t *testing.T) {
	e := startReal(t)
	ctx := realCtx(t)
	if _, err := collect(e.p.Stream(ctx, maxTokens(plainModel, 2))); err != nil {
		t.Fatal(err)
	}
	if got := e.loaded(t); !slices.Equal(got, []string{plainModel}) {
		t.Fatalf("/api/ps lists %v", got)
	}
	err := e.api.Chat(ctx, &api.ChatRequest{Model: plainModel, KeepAlive: &api.Duration{Duration: 0}}, func(api.ChatResponse) error { return nil })
	if err != nil {
		t.Fatalf("unload: %v", err)
	}
	// The unload finishes after the answer: wait for /api/ps to say so.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for len(e.loaded(t)) > 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the model stayed loaded")
		case <-tick.C:
		}
	}
	events, err := collect(e.p.Stream(ctx, maxTokens(plainModel, 2)))
	if err != nil || events[len(events)-1].Kind != llm.EventDone {
		t.Fatalf("after unloading: %v, %v", kinds(events), err)
	}
	if n := e.srv.Count(logLoad); n != 2 {
		t.Errorf("%d loads, want 2 (before and after the unload)", n)
	}
}

// Two sessions stream at once from one model, each getting its own complete reply.
func TestRealTwoSessionsAtOnce(t *testing.T) {
	e := startReal(t, "OLLAMA_NUM_PARALLEL=2")
	ctx := realCtx(t)
	var wg sync.WaitGroup
	results := make([][]llm.Event, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { results[i], errs[i] = collect(e.p.Stream(ctx, maxTokens(plainModel, 16))) })
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("session %d: %v", i, errs[i])
		}
		ev := results[i]
		if u := ev[len(ev)-2].Usage; u == nil || u.OutputTokens != 16 {
			t.Errorf("session %d: %v", i, kinds(ev))
		}
	}
	if n := e.srv.Count(logLoad); n != 1 {
		t.Errorf("%d loads for two sessions on one model, want 1", n)
	}
}
