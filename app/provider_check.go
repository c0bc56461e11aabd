package app

import (
	"context"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
)

// ProviderCheck is what "Test connection" in Settings shows: how many models the provider
// listed, or exactly why it could not.
type ProviderCheck struct {
	Models int        `json:"models"`
	Error  *llm.Error `json:"error,omitempty"`
}

// TestProvider lists the models of one provider as it is being edited, before it is saved:
// keys are the keys typed in; none means the keys stored under saved (the provider's saved
// name; "" for a new provider or keys about to be removed). It never fails: a problem is
// described in Error.
func (m *ModelService) TestProvider(p config.Provider, saved string, keys []string) ProviderCheck {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if len(keys) == 0 && saved != "" {
		keys = m.settings.keys(saved)
	}
	cfg := config.Config{Providers: []config.Provider{p}}
	if err := cfg.Validate(); err != nil {
		return ProviderCheck{Error: &llm.Error{Kind: llm.ErrBadRequest, Provider: p.Name, Message: err.Error()}}
	}
	prov, err := m.providers.factory(cfg, func(string) []string { return keys })
	if err != nil {
		return ProviderCheck{Error: llm.AsError(err, p.Name)}
	}
	models, err := prov.Models(ctx)
	if err != nil {
		// The row tested is named p.Name, whatever the client calls itself ("ollama").
		e := *llm.AsError(err, p.Name)
		e.Provider = p.Name
		return ProviderCheck{Error: &e}
	}
	return ProviderCheck{Models: len(models)}
}
