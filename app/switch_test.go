package app

import (
	"net"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// The main model's server is unreachable when the window starts: the status names the
// replacement, and the first conversation sent with it records the switch (both models and
// why) once, before its first message.
func TestStartupSwitchIsAnEventOfTheConversation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	set, _ := f.app.Settings.Get()
	set.Providers = []config.Provider{{Name: "main", Type: config.TypeOllama, BaseURL: dead}, {Name: "backup", Type: config.TypeOllama, BaseURL: f.model.URL}}
	set.Models.Main = scripted.DemoModelName
	set.Fallback = []string{"backup/" + scripted.DemoModelName}
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	st := f.app.Models.Status()
	sw := st.Switched
	if sw == nil || sw.From != scripted.DemoModelName || sw.Model != "backup/"+scripted.DemoModelName || !sw.Startup || st.DefaultModel != sw.Model ||
		!strings.Contains(sw.Reason, "cannot reach Ollama") {
		t.Fatalf("status %+v, switched %+v", st, sw)
	}
	info, _ := f.app.Sessions.Create("")
	replies := func() int { return strings.Count(types(f.events(t, info.ID)), "model_call") }
	for i, msg := range []string{"first", "second"} {
		if err := f.app.Chat.Send(info.ID, msg, st.DefaultModel); err != nil {
			t.Fatal(err)
		}
		f.rec.waitFor(t, "reply to "+msg, func() bool { return replies() == i+1 && !f.app.Runner.Busy(info.ID) })
	}
	evs := f.events(t, info.ID)
	if got := types(evs); !strings.HasPrefix(got, "fallback,user,assistant") || strings.Count(got, "fallback") != 1 {
		t.Fatalf("events %s", got)
	}
	var fb store.Fallback
	evs[0].Decode(&fb)
	if fb != *sw {
		t.Errorf("recorded %+v, want %+v", fb, *sw)
	}
}

// The documented provider/model form names a model of the first provider, which lists it
// bare: it is the main model, not a reason to fall back (issue 32).
func TestQualifiedMainModelOfTheFirstProviderIsNoFallback(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	set, _ := f.app.Settings.Get()
	main := set.Providers[0].Name + "/" + scripted.DemoModelName
	set.Models.Main = main
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	st := f.app.Models.Status()
	if st.Switched != nil || st.Error != nil || st.DefaultModel != scripted.DemoModelName {
		t.Fatalf("default %q, switched %+v, error %v", st.DefaultModel, st.Switched, st.Error)
	}
}

// docs/PROVIDERS.md's configuration for `tofu dev relay-model`: an OpenAI-compatible provider
// named relay that lists the model relay, the main model "relay/relay". The status names the
// main model as the provider lists it, so the banner, which looks the default up among the
// listed models, does not say "Model not found … relay/relay" (it did: the name stayed
// qualified while the list is bare).
func TestRelayMainModelIsNamedAsListed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	relay := scripted.New(t, scripted.Model{Name: "relay", ContextLength: 131072})
	set, _ := f.app.Settings.Get()
	set.Providers = []config.Provider{{Name: "relay", Type: config.TypeOpenAI, BaseURL: relay.URL + "/v1"}}
	set.Models.Main = "relay/relay"
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	st := f.app.Models.Status()
	listed := false
	for _, m := range st.Models {
		listed = listed || m.Name == st.DefaultModel
	}
	if !listed || st.DefaultModel != "relay" || st.Switched != nil || st.Error != nil {
		t.Fatalf("default %q among %+v, switched %+v, error %v", st.DefaultModel, st.Models, st.Switched, st.Error)
	}
}

// A main model no provider lists is replaced by the settings' fallback, not by whatever model
// comes first, and the notice is one sentence (it ended with ".." before).
func TestMissingMainModelSwitchesToTheFallbackChain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	set, _ := f.app.Settings.Get()
	set.Providers = []config.Provider{{Name: "main", Type: config.TypeOllama, BaseURL: f.model.URL}, {Name: "backup", Type: config.TypeOllama, BaseURL: f.model.URL}}
	set.Models.Main = "main/gone"
	set.Fallback = []string{"backup/" + scripted.DemoModelName}
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	st := f.app.Models.Status()
	sw := st.Switched
	if sw == nil || sw.Model != "backup/"+scripted.DemoModelName || st.DefaultModel != sw.Model || sw.From != "main/gone" {
		t.Fatalf("default %q, switched %+v", st.DefaultModel, sw)
	}
	if n := sw.Notice(); strings.Contains(n, "..") || strings.HasSuffix(n, ".") {
		t.Errorf("notice %q", n)
	}
}

// A reply the fallback model gave is labelled with the fallback's provider, not the one of the
// model asked for (assistant events said "provider":"main" beside the backup's model).
func TestFallbackReplyNamesItsProvider(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	set, _ := f.app.Settings.Get()
	set.Providers = []config.Provider{{Name: "main", Type: config.TypeOllama, BaseURL: dead}, {Name: "backup", Type: config.TypeOllama, BaseURL: f.model.URL}}
	set.Models.Main = scripted.DemoModelName
	set.Fallback = []string{"backup/" + scripted.DemoModelName}
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	info, _ := f.app.Sessions.Create("")
	if err := f.app.Chat.Send(info.ID, "hello", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "the reply", func() bool {
		return strings.Contains(types(f.events(t, info.ID)), "assistant") && !f.app.Runner.Busy(info.ID)
	})
	var reply store.AssistantMessage
	for _, ev := range f.events(t, info.ID) {
		if ev.Type == store.EventAssistant {
			ev.Decode(&reply)
		}
	}
	if reply.Model != "backup/"+scripted.DemoModelName || reply.Provider != "backup" {
		t.Fatalf("reply from model %q, provider %q", reply.Model, reply.Provider)
	}
}
