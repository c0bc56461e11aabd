package app

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// "Test connection" lists the models of the provider as typed, unsaved, and says exactly why
// it could not: the server up (two wire formats), the same server down, an invalid URL.
func TestTestProvider(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv := scripted.New(t, scripted.DemoModel(), scripted.Model{Name: "second"})

	for _, p := range []config.Provider{
		{Name: "local", Type: config.TypeOllama, BaseURL: srv.URL},
		{Name: "vllm", Type: config.TypeOpenAI, BaseURL: srv.URL + "/v1"},
	} {
		if got := f.app.Models.TestProvider(p, "", []string{"sk-test"}); got.Error != nil || got.Models != 2 {
			t.Fatalf("%s up: %+v (error %+v)", p.Type, got, got.Error)
		}
	}
	// Nothing was saved: the settings still name the fixture's one provider.
	if set, _ := f.app.Settings.Get(); len(set.Providers) != 1 || set.Providers[0].BaseURL != f.model.URL {
		t.Fatalf("testing changed the settings: %+v", set.Providers)
	}

	srv.Close()
	got := f.app.Models.TestProvider(config.Provider{Name: "local", Type: config.TypeOllama, BaseURL: srv.URL}, "", nil)
	if got.Models != 0 || got.Error == nil || got.Error.Kind != llm.ErrUnreachable || got.Error.Provider != "local" || got.Error.Message == "" {
		t.Fatalf("down: %+v (error %+v)", got, got.Error)
	}

	got = f.app.Models.TestProvider(config.Provider{Name: "x", Type: config.TypeOpenAI, BaseURL: "ftp://host"}, "", nil)
	if got.Error == nil || got.Error.Kind != llm.ErrBadRequest || !strings.Contains(got.Error.Message, "not an http(s) URL") {
		t.Fatalf("invalid URL: %+v (error %+v)", got, got.Error)
	}
}
