//go:build unix

package manage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama/manage"
	"github.com/tofu-research/tofu/backend/llm/ollama/realollama"
	"github.com/tofu-research/tofu/backend/llm/ollama/registrytest"
)

// The pull, list, load and delete of a model, end to end: a real `ollama serve` (realollama,
// make test-ollama) pulls a model it has never seen from a registry served by the test.

// realLimit only keeps a broken test from hanging; no assertion depends on it.
const realLimit = 5 * time.Minute

func realCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), realLimit)
	t.Cleanup(cancel)
	return ctx
}

// tinyGGUF is the tests' generated model file.
func tinyGGUF(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := realollama.WriteGGUF(&b, realollama.DefaultTinyModel); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pulling runs a pull in the background; its progress arrives on events, its end on done.
func pulling(ctx context.Context, m *manage.Manager, name string, total int64) (events chan manage.Progress, done chan error) {
	events, done = make(chan manage.Progress, 4096), make(chan error, 1)
	go func() { done <- m.Pull(ctx, name, total, func(p manage.Progress) { events <- p }) }()
	return events, done
}

// until reads events until one satisfies ok.
func until(t *testing.T, events chan manage.Progress, ok func(manage.Progress) bool) manage.Progress {
	t.Helper()
	ctx := realCtx(t)
	for {
		select {
		case p := <-events:
			if p.State != manage.PullRunning && !ok(p) {
				t.Fatalf("the pull ended before the expected progress: %+v (error %v)", p, p.Error)
			}
			if ok(p) {
				return p
			}
		case <-ctx.Done():
			t.Fatal("no such progress")
		}
	}
}

func TestRealPullCancelResumeLoadDelete(t *testing.T) {
	bin := realollama.Binary(t)
	srv := realollama.Start(t, bin)
	reg := registrytest.New(t)
	gguf := tinyGGUF(t)
	man := reg.OllamaModel("tofu/tiny:f32", gguf, realollama.ToolsTemplate, "117K", "F32")
	name := reg.Name("tofu/tiny:f32")
	weights := man.Layers[0]
	half := weights.Size / 2
	gate := reg.Gate(weights.Digest, 0)
	m, err := manage.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := realCtx(t)

	plan, err := m.PlanPull(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	want := man.Config.Size
	for _, l := range man.Layers {
		want += l.Size
	}
	if plan.Bytes != want || plan.TooLarge || plan.Memory <= 0 {
		t.Fatalf("plan: %+v, want %d bytes, fitting in memory", plan, want)
	}

	// First pull: held at half the weights, then cancelled.
	pullCtx, cancel := context.WithCancel(ctx)
	events, done := pulling(pullCtx, m, name, plan.Bytes)
	<-gate.Reached()
	// The layer's first report (nothing fetched yet), then half of it.
	until(t, events, func(p manage.Progress) bool { return p.Status == "pulling "+weights.Digest[7:19] })
	gate.MoveTo(half)
	mid := until(t, events, func(p manage.Progress) bool { return p.Completed == half })
	if mid.State != manage.PullRunning || mid.Total != plan.Bytes || mid.BytesPerSecond <= 0 || mid.SecondsLeft <= 0 {
		t.Fatalf("mid-pull progress: %+v", mid)
	}
	cancel()
	err = <-done
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrInterrupted {
		t.Fatalf("cancelled pull: %v", err)
	}
	last := until(t, events, func(p manage.Progress) bool { return p.State != manage.PullRunning })
	if last.State != manage.PullCancelled || last.Error == nil {
		t.Fatalf("last event of a cancelled pull: %+v", last)
	}
	if got := reg.Served(weights.Digest); got != half {
		t.Fatalf("served %d bytes of the weights before the cancel, want %d", got, half)
	}
	if list, err := m.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("after a cancelled pull: %v %v", list, err)
	}

	// Second pull: it resumes where the first stopped; no byte on disk is fetched again.
	gate.Open()
	events, done = pulling(ctx, m, name, plan.Bytes)
	if err := <-done; err != nil {
		t.Fatalf("resumed pull: %v", err)
	}
	last = until(t, events, func(p manage.Progress) bool { return p.State != manage.PullRunning })
	if last.State != manage.PullDone || last.Completed != plan.Bytes || last.Resumed < half {
		t.Fatalf("last event of the resumed pull: %+v", last)
	}
	if got := reg.Served(weights.Digest); got != weights.Size {
		t.Fatalf("served %d bytes of the weights over both pulls, want exactly %d", got, weights.Size)
	}
	resumedAt := fmt.Sprintf("bytes=%d-%d", half, weights.Size-1)
	if !slices.ContainsFunc(reg.Requests(), func(q registrytest.Request) bool { return q.Range == resumedAt }) {
		t.Fatalf("no request for %s: %+v", resumedAt, reg.Requests())
	}

	// Listed with its details; loaded, it says how much memory it holds.
	list, err := m.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list after the pull: %+v %v", list, err)
	}
	got := list[0]
	if got.Name != name || got.ParameterSize != "117K" || got.Quantization != "F32" || got.ContextLength != realollama.DefaultTinyModel.ContextLength ||
		!slices.Equal(got.Capabilities, []llm.Capability{llm.CapTools}) || got.CapabilitiesDerived || got.SizeBytes != plan.Bytes || got.Loaded != nil {
		t.Fatalf("listed: %+v", got)
	}
	u, _ := url.Parse(srv.URL)
	if err := api.NewClient(u, http.DefaultClient).Generate(ctx, &api.GenerateRequest{Model: name}, func(api.GenerateResponse) error { return nil }); err != nil {
		t.Fatalf("load: %v", err)
	}
	list, err = m.List(ctx)
	if err != nil || len(list) != 1 || list[0].Loaded == nil || list[0].Loaded.MemoryBytes <= 0 {
		t.Fatalf("list with the model loaded: %+v %v", list, err)
	}

	if err := m.Delete(ctx, name); err != nil {
		t.Fatal(err)
	}
	if list, err := m.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("after delete: %+v %v", list, err)
	}
	if err := m.Delete(ctx, name); !errors.As(err, &le) || le.Kind != llm.ErrModelNotFound {
		t.Fatalf("deleting it again: %v", err)
	}
}

// closedAddress is a loopback address nothing listens on: a registry that cannot be reached,
// as when the machine is offline.
func closedAddress(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Offline: the plan and the pull fail with a message that says so, and the server goes on
// answering (the installed model is listed and answers).
func TestRealPullOffline(t *testing.T) {
	bin := realollama.Binary(t)
	srv := realollama.Start(t, bin)
	ctx := realCtx(t)
	if err := srv.Create(ctx, "tiny-plain", realollama.PlainTemplate, realollama.DefaultTinyModel); err != nil {
		t.Fatal(err)
	}
	m, _ := manage.New(srv.URL)
	name := closedAddress(t) + "/tofu/tiny:f32"

	_, err := m.PlanPull(ctx, name)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrUnreachable {
		t.Fatalf("plan offline: %v", err)
	}
	events, done := pulling(ctx, m, name, 0)
	err = <-done
	if !errors.As(err, &le) || le.Kind != llm.ErrUnreachable {
		t.Fatalf("pull offline: %v", err)
	}
	want := "Could not reach the model registry " + name[:len(name)-len("/tofu/tiny:f32")] + " to pull " + name + ": this machine seems to be offline (connect: connection refused)."
	if le.Message != want || le.Hint == "" {
		t.Fatalf("pull offline says %q (hint %q), want %q", le.Message, le.Hint, want)
	}
	last := until(t, events, func(p manage.Progress) bool { return p.State != manage.PullRunning })
	if last.State != manage.PullFailed || last.Error == nil || last.Error.Message != want {
		t.Fatalf("last event: %+v", last)
	}
	list, err := m.List(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "tiny-plain:latest" {
		t.Fatalf("the list after a failed pull: %+v %v", list, err)
	}
}

// Ollama installed but not running: Serve starts it, as Tofu's child, where the settings point.
func TestRealServeStartsOllama(t *testing.T) {
	bin := realollama.Binary(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("OLLAMA_MODELS", filepath.Join(home, "models"))
	m, _ := manage.New("http://" + closedAddress(t))
	ctx := realCtx(t)
	if m.Running(ctx) {
		t.Fatal("running before it was started")
	}
	_, err := m.List(ctx)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrUnreachable || le.Hint == "" {
		t.Fatalf("list with Ollama stopped: %v", err)
	}
	s, err := m.Serve(ctx, bin, func(cmd *exec.Cmd) error {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the app's spawn adds procgroup's rules
		return cmd.Start()
	})
	if err != nil {
		t.Fatal(err)
	}
	if list, err := m.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("list once started: %v %v", list, err)
	}
	s.Stop()
	<-s.Exited()
	if m.Running(ctx) {
		t.Fatal("still answering after Stop")
	}
}
