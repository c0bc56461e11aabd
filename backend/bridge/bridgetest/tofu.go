// Package bridgetest is Tofu's side of the bridge's tests: a real store, the session runner on
// the scripted model, and a bridge between them and a platform, stopped as a kill would stop it.
package bridgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// Patience bounds every wait on a chat: a guard against a hang, never a speed check.
const Patience = 60 * time.Second

// Tofu is one Tofu's state on disk and the scripted model it talks to; Start runs a bridge.
type Tofu struct {
	Dir   string
	Store *store.Store
	Model *scripted.Server
	WS    string // the bridge's workspace

	mu   sync.Mutex
	logs []string

	runner *session.Runner
	cancel context.CancelFunc
	done   chan error
}

// New opens a store in a temporary folder and starts the scripted model.
func New(t *testing.T) *Tofu {
	t.Helper()
	f := &Tofu{Dir: t.TempDir(), Model: scripted.New(t, scripted.DemoModel()), WS: t.TempDir()}
	var err error
	if f.Store, err = store.Open(f.Dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Stop()
		f.Store.Close()
	})
	return f
}

// Start runs a bridge named after the platform, with a runner of its own (a new process's
// state), on the store; o's platform, allowed users and tuning are used, the rest is filled in.
func (f *Tofu) Start(t *testing.T, o bridge.Options) *bridge.Bridge {
	t.Helper()
	b, err := bridge.New(f.Options(o))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel, f.done = cancel, make(chan error, 1)
	go func() { f.done <- b.Run(ctx) }()
	return b
}

// Options fills in o as Start does (a new runner on the store and the scripted model, the
// workspace, short waits, the log), for a test that runs the bridge itself.
func (f *Tofu) Options(o bridge.Options) bridge.Options {
	provider := ollama.New(f.Model.URL)
	cfg := config.Config{}
	cfg.Models.Main = scripted.DemoModelName
	f.runner = session.New(session.Options{
		Store:    f.Store,
		Provider: func() (llm.Provider, string, error) { return provider, f.Model.URL, nil },
		Config:   func() (config.Config, error) { return cfg, nil },
	})
	o.Name, o.Store, o.Runner, o.Workspace = o.Platform.Name(), f.Store, f.runner, f.WS
	o.EditEvery, o.FirstBackoff = 20*time.Millisecond, 10*time.Millisecond
	o.Logf = func(format string, args ...any) {
		f.mu.Lock()
		f.logs = append(f.logs, fmt.Sprintf(format, args...))
		f.mu.Unlock()
	}
	return o
}

// Stop ends the bridge as a killed Tofu would leave it: its context cancelled, its turns cut,
// nothing in memory kept.
func (f *Tofu) Stop() {
	if f.cancel == nil {
		return
	}
	f.cancel()
	<-f.done
	f.runner.Shutdown()
	f.cancel = nil
}

// Reopen closes and opens the store again (a restarted process).
func (f *Tofu) Reopen(t *testing.T) {
	t.Helper()
	if err := f.Store.Close(); err != nil {
		t.Fatal(err)
	}
	var err error
	if f.Store, err = store.Open(f.Dir); err != nil {
		t.Fatal(err)
	}
}

// Log is what the bridge logged.
func (f *Tofu) Log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.logs, "\n")
}

// FirstStep matches a turn's first model call (no tool result yet).
func FirstStep(r llm.Request) bool {
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool {
			return false
		}
	}
	return true
}

// WriteCall is a write_file call (it asks in the default approval mode).
func WriteCall(path, content string) llm.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return llm.ToolCall{ID: "call_w1", Name: "write_file", Arguments: args}
}

// Users counts the user messages of every session (a message taken twice shows as two).
func (f *Tofu) Users(t *testing.T) int {
	t.Helper()
	sessions, err := f.Store.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range sessions {
		evs, _ := f.Store.Events(s.ID)
		for _, ev := range evs {
			if ev.Type == store.EventUser {
				n++
			}
		}
	}
	return n
}

// WaitLogged waits until the bridge's log holds substr n times (or Patience passes) and says
// how many times it does.
func (f *Tofu) WaitLogged(substr string, n int) int {
	deadline := time.Now().Add(Patience)
	for {
		got := strings.Count(f.Log(), substr)
		if got >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}
