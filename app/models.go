package app

import (
	"context"
	"errors"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// ModelStatus is what the model picker and the connection banner show.
type ModelStatus struct {
	Provider     string          `json:"provider"`
	BaseURL      string          `json:"base_url"`
	Reachable    bool            `json:"reachable"`
	Models       []llm.ModelInfo `json:"models"`
	DefaultModel string          `json:"default_model"`
	Error        *llm.Error      `json:"error,omitempty"`
}

// ModelService reports which models can be used.
type ModelService struct {
	providers *providerCache
	settings  *SettingsService
	emit      Emitter
}

// Status asks the provider for its models. It never fails: a problem is described in Error.
func (m *ModelService) Status() ModelStatus {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	set, _ := m.settings.Get()
	p, baseURL := m.providers.get(set)
	st := ModelStatus{Provider: p.Name(), BaseURL: baseURL, DefaultModel: set.DefaultModel, Models: []llm.ModelInfo{}}
	models, err := p.Models(ctx)
	switch {
	case err != nil:
		st.Error = asLLMError(err, p.Name())
		st.Reachable = st.Error.Kind != llm.ErrUnreachable
	case len(models) == 0:
		st.Reachable = true
		st.Error = &llm.Error{Kind: llm.ErrNoModels, Provider: p.Name(),
			Message: "Ollama is running but has no models installed.",
			Hint:    "Install one with `ollama pull qwen3:8b` (or any model), then refresh."}
	default:
		st.Reachable = true
		st.Models = models
		if st.DefaultModel == "" || !hasModel(models, st.DefaultModel) {
			if st.DefaultModel != "" {
				st.Error = &llm.Error{Kind: llm.ErrModelNotFound, Provider: p.Name(),
					Message: "The default model " + st.DefaultModel + " is not installed.",
					Hint:    "Run `ollama pull " + st.DefaultModel + "`, or pick another model."}
			}
			st.DefaultModel = models[0].Name
		}
	}
	m.emit.Emit(TopicModels, st)
	return st
}

func hasModel(models []llm.ModelInfo, name string) bool {
	for _, m := range models {
		if m.Name == name {
			return true
		}
	}
	return false
}

// asLLMError returns err as an *llm.Error, wrapping unknown errors as server errors.
func asLLMError(err error, provider string) *llm.Error {
	var e *llm.Error
	if errors.As(err, &e) {
		if e.Provider == "" {
			c := *e
			c.Provider = provider
			return &c
		}
		return e
	}
	return &llm.Error{Kind: llm.ErrServer, Provider: provider, Message: err.Error()}
}
