package app

import (
	"github.com/tofu-research/tofu/backend/models"
	"net"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/openai"
)

// Regression: an OpenAI-compatible provider that failed was shown as "Ollama is not
// reachable". The status names the provider and its type, and an empty base URL means the
// default its placeholder shows, not an invalid URL.
func TestStatusNamesTheProviderThatFailed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A port nobody listens on: the provider is unreachable, quickly and offline.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	set, _ := f.app.Settings.Get()
	set.Providers = []config.Provider{{Name: "vllm", Type: config.TypeOpenAI, BaseURL: closed}}
	set.Models.Main = "qwen"
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	st := f.app.Models.Status()
	if st.Provider != "vllm" || st.ProviderType != config.TypeOpenAI || st.Error == nil || st.Error.Kind != llm.ErrUnreachable || st.Error.Provider != "vllm" {
		t.Fatalf("status = %+v (error %+v)", st, st.Error)
	}

	set.Providers[0].BaseURL = ""
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	p, err := f.app.Engine.Providers.Get()
	if err != nil || models.BaseURLOf(p) != openai.DefaultBaseURL {
		t.Fatalf("an empty base URL gives %q, %v; want %s", models.BaseURLOf(p), err, openai.DefaultBaseURL)
	}
	got, _ := f.app.Settings.Get()
	if got.DefaultBaseURLs[config.TypeOpenAI] != openai.DefaultBaseURL {
		t.Fatalf("placeholders %v", got.DefaultBaseURLs)
	}
}

// The Ollama base URL's placeholder is what an empty field means here: OLLAMA_HOST.
func TestOllamaPlaceholderFollowsOllamaHost(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "http://10.1.2.3:4567")
	f := newFixture(t)
	got, err := f.app.Settings.Get()
	if err != nil || got.DefaultBaseURLs[config.TypeOllama] != "http://10.1.2.3:4567" {
		t.Fatalf("placeholders %v, %v", got.DefaultBaseURLs, err)
	}
}
