package library

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/shareddata"
	"github.com/tofu-research/tofu/backend/store"
)

// env is a library on a real store, with the scripted model behind the real gateway (so model
// calls are reported by the router as in the app).
type env struct {
	lib   *Library
	store *store.Store
	model *scripted.Server
	heard *heard
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.DemoModel())
	cfg := config.Default()
	cfg.Providers[0].BaseURL = srv.URL
	gw, err := gateway.New(cfg, func(string) []string { return nil }, router.WithPolicy(router.Policy{
		MaxAttempts: 2, MaxRestarts: 2, BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond, Jitter: -1,
	}))
	if err != nil {
		t.Fatal(err)
	}
	h := &heard{changed: make(chan struct{})}
	lib := New(st, Options{
		Provider: func() (llm.Provider, error) { return gw, nil },
		Call: agent.OneShot{Log: st, Provider: func() (llm.Provider, error) { return gw, nil },
			Price: func(string, llm.Usage) float64 { return 0.25 }}.Call,
		Emit: h,
	})
	t.Cleanup(func() { lib.Shutdown(); st.Close() })
	return &env{lib: lib, store: st, model: srv, heard: h}
}

// heard records what the library told the UI.
type heard struct {
	mu      sync.Mutex
	msgs    []any
	changed chan struct{}
}

func (h *heard) Emit(_ string, data any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, data)
	close(h.changed)
	h.changed = make(chan struct{})
}

// progressEnd waits for the translation into lang to leave the running state and returns its
// last progress message.
func (h *heard) progressEnd(t *testing.T, lang string) TranslationProgress {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		h.mu.Lock()
		ch := h.changed
		for _, m := range h.msgs {
			if p, ok := m.(TranslationProgress); ok && p.Lang == lang && p.State != "running" {
				h.mu.Unlock()
				return p
			}
		}
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("the translation into %s did not end", lang)
		}
	}
}

// importFile imports a PDF from disk.
func (e *env) importFile(t *testing.T, path string) Info {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := e.lib.Import(context.Background(), "paper.pdf", strings.NewReader(string(b)), int64(len(b)), "")
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// sharedPaper is the path of a paper of the shared evaluation set, failing when it is absent.
func sharedPaper(t *testing.T, id string) string {
	t.Helper()
	return shareddata.Require(t, "papers", id, "paper.pdf")
}

// joss is a small paper kept in the repository (5 pages).
const joss = "../../../app/cli/testdata/multivae_joss.pdf"

func types(evs []store.Event) string {
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Type))
	}
	return strings.Join(out, ",")
}
