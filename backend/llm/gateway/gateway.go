// Package gateway turns the user's configuration into one llm.Provider: every configured
// provider behind a router (retries, key rotation, the fallback chain), addressed by model
// references "model" (first provider) or "provider/model".
package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/anthropic"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/openai"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/toolparse"
)

// Keys returns the API keys of a provider by name.
type Keys func(provider string) []string

// Gateway is the llm.Provider the app talks to.
type Gateway struct {
	cfg     config.Config
	keys    Keys
	opts    []router.Option
	listers map[string]llm.Provider // one client per provider, to list its models
	// health is every target's circuit breaker, shared by all routers: the app keeps one
	// gateway per configuration, so every turn and sub-agent learns that a target is dead
	// from the first call that found out.
	health *router.Health

	mu      sync.Mutex
	routers map[string]*router.Router // by the provider a call starts on
}

// New builds the gateway for cfg. opts tune every router (policy, report callback).
func New(cfg config.Config, keys Keys, opts ...router.Option) (*Gateway, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := ollama.CheckKeepAlive(cfg.OllamaKeepAlive); err != nil {
		return nil, fmt.Errorf("ollama_keep_alive: %w", err)
	}
	if keys == nil {
		keys = func(string) []string { return nil }
	}
	g := &Gateway{cfg: cfg, keys: keys, opts: opts, listers: map[string]llm.Provider{}, routers: map[string]*router.Router{},
		health: router.NewHealth()}
	for _, p := range cfg.Providers {
		key := ""
		if ks := keys(p.Name); len(ks) > 0 {
			key = ks[0]
		}
		g.listers[p.Name] = g.client(p, key)
	}
	return g, nil
}

// client builds one provider client.
func (g *Gateway) client(p config.Provider, key string) llm.Provider {
	switch p.Type {
	case config.TypeOpenAI:
		return openai.New(p.BaseURL, key, openai.WithName(p.Name))
	case config.TypeAnthropic:
		var opts []anthropic.Option
		if b := anthropic.Budget(g.cfg.Thinking); b > 0 {
			opts = append(opts, anthropic.WithThinkingBudget(b))
		}
		return anthropic.New(p.BaseURL, key, opts...)
	default:
		var opts []ollama.Option
		if g.cfg.ContextWindowCap > 0 {
			opts = append(opts, ollama.WithContextCap(g.cfg.ContextWindowCap))
		}
		if g.cfg.OllamaKeepAlive != "" {
			opts = append(opts, ollama.WithKeepAlive(g.cfg.OllamaKeepAlive))
		}
		return ollama.New(p.BaseURL, opts...)
	}
}

// Name implements llm.Provider.
func (g *Gateway) Name() string { return "gateway" }

// BaseURL is the address of the first provider (the one the connection banner is about).
func (g *Gateway) BaseURL() string {
	if b, ok := g.listers[g.cfg.Providers[0].Name].(interface{ BaseURL() string }); ok {
		return b.BaseURL()
	}
	return g.cfg.Providers[0].BaseURL
}

// ProviderOf names the configured provider a model reference resolves to.
func (g *Gateway) ProviderOf(ref string) string {
	p, _ := g.cfg.Resolve(ref)
	return p.Name
}

// target is the router target for model on provider p.
func (g *Gateway) target(p config.Provider, model string) router.Target {
	keys := g.keys(p.Name)
	if len(keys) == 0 {
		return router.Target{Name: p.Name, Provider: g.listers[p.Name], Model: model}
	}
	return router.Target{Name: p.Name, Model: model, Keys: keys, NewProvider: func(key string) llm.Provider { return g.client(p, key) }}
}

// routerFor returns the router of calls that start on provider p: p first, then the
// configured fallbacks (each a model on some provider).
func (g *Gateway) routerFor(p config.Provider) (*router.Router, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r := g.routers[p.Name]; r != nil {
		return r, nil
	}
	targets := []router.Target{g.target(p, "")}
	for _, ref := range g.cfg.Fallback {
		fp, model := g.cfg.Resolve(ref)
		targets = append(targets, g.target(fp, model))
	}
	r, err := router.New(targets, append([]router.Option{router.WithName(p.Name), router.WithHealth(g.health)}, g.opts...)...)
	if err != nil {
		return nil, err
	}
	g.routers[p.Name] = r
	return r, nil
}

// Health reports the circuit of every target the gateway's calls have used.
func (g *Gateway) Health() []router.State { return g.health.States() }

// Stream implements llm.Provider: the model reference picks the provider.
func (g *Gateway) Stream(ctx context.Context, req llm.Request) llm.Stream {
	p, model := g.cfg.Resolve(req.Model)
	r, err := g.routerFor(p)
	if err != nil {
		return func(yield func(llm.Event, error) bool) { yield(llm.Event{}, err) }
	}
	req.Model = model
	// The conversation's level (Enhance) wins over the settings'; Anthropic reads the level
	// for its budget, the others only the switch.
	if req.Thinking == "" {
		req.Thinking = g.cfg.Thinking
	}
	if req.Thinking != "" && req.Thinking != "off" {
		req.Think = true
	}
	s := r.Stream(ctx, req)
	if len(req.Tools) > 0 {
		// Models sometimes print their tool calls as text (Qwen's <tool_call>, XML
		// functions, bare JSON), on every provider, Anthropic's included (a model behind an
		// Anthropic-compatible endpoint, or one imitating its history): read them back as
		// calls. What cannot be read back the agent never takes for an answer.
		s = toolparse.Wrap(s, toolparse.FamilyOf(model), req.Tools)
	}
	return s
}

// Models lists the models of every provider, named by their references. It fails only when
// no provider answers; the first provider's error comes first, since the banner is about it.
func (g *Gateway) Models(ctx context.Context) ([]llm.ModelInfo, error) {
	var out []llm.ModelInfo
	var errs []error
	for _, p := range g.cfg.Providers {
		models, err := g.listers[p.Name].Models(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, m := range models {
			m.Name = g.cfg.Ref(p.Name, m.Name)
			m.Provider = p.Name
			out = append(out, m)
		}
	}
	if len(out) == 0 && len(errs) > 0 {
		return nil, errs[0]
	}
	if len(errs) > 0 && len(g.cfg.Providers) > 1 {
		return out, &PartialError{Errs: errs, Models: len(out)}
	}
	return out, nil
}

// PartialError says some providers did not answer while others did.
type PartialError struct {
	Errs   []error
	Models int
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("%d provider(s) did not answer: %v", len(e.Errs), errors.Join(e.Errs...))
}

// Unwrap gives the providers' errors.
func (e *PartialError) Unwrap() []error { return e.Errs }
