package session

import (
	"context"
	"testing"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// A turn on an Ollama provider prices L1's moves for the server's KV cache, with the room its
// window leaves before L2; a turn on a hosted provider keeps the priced prompt cache.
func TestOllamaTurnGetsTheLocalPolicy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []struct {
		typ   string
		local bool
	}{{config.TypeOllama, true}, {config.TypeOpenAI, false}} {
		m, err := f.runner.contextManager(f.cfg, nil, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		at := agent.Turn{Model: scripted.DemoModelName, Context: m}
		cfg := config.Config{Providers: []config.Provider{{Name: "p", Type: tc.typ}}}
		f.runner.contextModels(context.Background(), cfg, &at)
		kv := at.Context.Config.L1.KV
		if at.Window <= 0 {
			t.Fatalf("%s: no window", tc.typ)
		}
		if kv.Enabled != tc.local || (tc.local && kv.Room != compact.Threshold(at.Window, at.Context.Config.L2)) {
			t.Errorf("%s: window %d, kv %+v", tc.typ, at.Window, kv)
		}
	}
}
