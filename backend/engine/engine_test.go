package engine

import (
	"context"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// open assembles an engine as the commands do (settings in a config directory, the real
// gateway) against the scripted model server srv.
func open(t *testing.T, srv *scripted.Server) *Engine {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfgDir := t.TempDir()
	set := NewSettings(config.Open(cfgDir), config.FileSecrets(cfgDir))
	if err := set.Update(func(c *config.Config) {
		c.Providers = append([]config.Provider(nil), c.Providers...)
		c.Providers[0].BaseURL = srv.URL
	}); err != nil {
		t.Fatal(err)
	}
	e := New(Options{Store: st, Settings: set})
	t.Cleanup(func() { e.Close(); st.Close() })
	return e
}

// A message sent through the engine's runner is answered by the configured model and
// recorded, with no window and no emitter.
func TestEngineRunsATurn(t *testing.T) {
	t.Parallel()
	e := open(t, scripted.New(t, scripted.DemoModel()).ScriptDemo())
	sent, err := e.Runner.Send(context.Background(), session.Message{Text: "What is tofu made of?"},
		session.Request{Model: scripted.DemoModelName})
	if err != nil {
		t.Fatal(err)
	}
	if end := sent.Turn.Wait(); end.Err != nil {
		t.Fatalf("turn ended with %v", end.Err)
	}
	evs, err := e.Store.Events(sent.Session)
	if err != nil {
		t.Fatal(err)
	}
	var reply string
	for _, ev := range evs {
		if ev.Type == store.EventAssistant {
			var m store.AssistantMessage
			if err := ev.Decode(&m); err != nil {
				t.Fatal(err)
			}
			reply = m.Text
		}
	}
	if want := scripted.EchoText("What is tofu made of?"); reply != want {
		t.Fatalf("reply %q, want %q", reply, want)
	}
}

// The engine follows the settings: a change is a new generation (providers are rebuilt), My
// Day's time becomes the scheduler's job, and the demo's provider is the configuration's
// while it runs and never after EndDemo.
func TestEngineFollowsTheSettings(t *testing.T) {
	t.Parallel()
	e := open(t, scripted.New(t, scripted.DemoModel()).ScriptDemo())
	gen := e.Settings.Generation()
	if err := e.Settings.Update(func(c *config.Config) { c.MyDayAt = "18:00" }); err != nil {
		t.Fatal(err)
	}
	if e.Settings.Generation() == gen {
		t.Fatal("a saved change left the generation as it was: providers would not be rebuilt")
	}
	if _, ok, err := e.Scheduler.Get(schedule.MyDayJobID); err != nil || !ok {
		t.Fatalf("My Day at 18:00 gave no scheduled job (ok %v, err %v)", ok, err)
	}
	e.Settings.SetDemo(&config.Provider{Name: "demo", Type: "ollama", BaseURL: "http://127.0.0.1:9"})
	cfg, err := e.Settings.Config()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Provider("demo"); !ok || !e.Settings.DemoOn() {
		t.Fatalf("the demo's provider is not in the configuration while it runs: %+v", cfg.Providers)
	}
	e.Settings.EndDemo()
	if cfg, _ := e.Settings.Config(); e.Settings.DemoOn() || func() bool { _, ok := cfg.Provider("demo"); return ok }() {
		t.Fatal("the demo's provider outlived EndDemo")
	}
}
