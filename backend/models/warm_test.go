package models

import (
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"

	"github.com/tofu-research/tofu/backend/llm/scripted"
)

func modelNames(st Status) []string {
	var names []string
	for _, m := range st.Models {
		names = append(names, m.Name)
	}
	return names
}

// The window warms the model status as it starts: its page's first Status call takes that
// answer (asked before the page existed), and every later call asks the server again.
func TestFirstStatusTakesTheWarmedAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	before := modelNames(f.m.Status())
	f.m.Warm()
	<-f.m.warm.done
	f.model.SetModels(scripted.Model{Name: "later:1b"})

	published := f.countModels()
	first := f.m.Status()
	if got := modelNames(first); len(got) != len(before) || got[0] != before[0] {
		t.Fatalf("first status after Warm lists %v; want the warmed %v", got, before)
	}
	if f.countModels() != published+1 {
		t.Fatal("the warmed status was not published to the window")
	}
	if got := modelNames(f.m.Status()); len(got) != 1 || got[0] != "later:1b" {
		t.Fatalf("second status lists %v; want the server's new list [later:1b]", got)
	}
	f.m.Warm() // once taken, Warm does not start again
	if got := modelNames(f.m.Status()); len(got) != 1 || got[0] != "later:1b" {
		t.Fatalf("status after a second Warm lists %v", got)
	}
}

// A warmed answer older than warmTTL is not shown: the first call asks again.
func TestStaleWarmedAnswerIsDropped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.m.Warm()
	<-f.m.warm.done
	f.m.mu.Lock()
	f.m.warm.started = time.Now().Add(-warmTTL - time.Second)
	f.m.mu.Unlock()
	f.model.SetModels(scripted.Model{Name: "later:1b"})
	if got := modelNames(f.m.Status()); len(got) != 1 || got[0] != "later:1b" {
		t.Fatalf("status lists %v; want a fresh answer [later:1b]", got)
	}
}

type fixture struct {
	m     *Service
	model *scripted.Server
	mu    sync.Mutex
	sent  int // statuses sent to the window
}

// newFixture is a Service on the real gateway, its one provider the scripted model server.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{model: scripted.New(t, scripted.DemoModel())}
	cfg := config.Default()
	cfg.Providers = append([]config.Provider(nil), cfg.Providers...)
	cfg.Providers[0].BaseURL = f.model.URL
	p, err := gateway.New(cfg, func(string) []string { return nil })
	if err != nil {
		t.Fatal(err)
	}
	f.m = New(Options{
		Provider: func() (llm.Provider, error) { return p, nil },
		Config:   func() (config.Config, error) { return cfg, nil },
		DemoOn:   func() bool { return false },
		Emit: func(topic string, _ any) {
			if topic == Topic {
				f.mu.Lock()
				f.sent++
				f.mu.Unlock()
			}
		},
	})
	return f
}

// countModels is how many model statuses were sent to the window.
func (f *fixture) countModels() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent
}
