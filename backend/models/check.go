package models

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/tools/images"
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
func (m *Service) TestProvider(p config.Provider, saved string, keys []string) ProviderCheck {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if len(keys) == 0 && saved != "" {
		keys = m.o.Keys(saved)
	}
	cfg := config.Config{Providers: []config.Provider{p}}
	if err := cfg.Validate(); err != nil {
		return ProviderCheck{Error: &llm.Error{Kind: llm.ErrBadRequest, Provider: p.Name, Message: err.Error()}}
	}
	prov, err := m.o.Factory(cfg, func(string) []string { return keys })
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

// ImagesCheck is what "Test connection" of the images provider shows.
type ImagesCheck struct {
	Models int    `json:"models"`          // models the provider listed
	Listed bool   `json:"listed"`          // the model set is among them
	Error  string `json:"error,omitempty"` // why it could not connect
}

// TestImages asks the images provider as edited for its models: key is the key typed in ("":
// the stored one). Nothing is generated. It never fails: a problem is in Error.
func (m *Service) TestImages(p config.Images, key string) ImagesCheck {
	cfg := config.Default()
	cfg.Images = p
	if err := cfg.Validate(); err != nil {
		return ImagesCheck{Error: err.Error()}
	}
	if strings.TrimSpace(p.BaseURL) == "" {
		return ImagesCheck{Error: "enter the images API's base URL, such as https://api.openai.com"}
	}
	if key == "" {
		key = m.o.ImagesKey()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ids, err := images.Provider{BaseURL: strings.TrimSpace(p.BaseURL), Key: strings.TrimSpace(key)}.Check(ctx)
	if err != nil {
		return ImagesCheck{Error: images.Explain(err)}
	}
	return ImagesCheck{Models: len(ids), Listed: slices.Contains(ids, strings.TrimSpace(p.Model))}
}
