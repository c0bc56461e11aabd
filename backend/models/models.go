// Package models says which models can be used: the model picker's and the connection
// banner's status (the providers' models, the main model or its replacement when it is not
// available, the coding agents installed), warmed as the window starts; "Try the demo" (the
// built-in scripted model on loopback); and Settings' "Test connection" of a provider or of the
// images API. The window's ModelService (app) is Service bound to the user interface: every
// exported method of Service is callable from the page, so the rest are functions.
package models

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/store"
)

// Topic carries Status updates to the window.
const Topic = "models"

// Status is what the model picker and the connection banner show.
type Status struct {
	Provider     string          `json:"provider"`
	ProviderType string          `json:"provider_type"` // ollama, openai or anthropic: banners name what failed
	BaseURL      string          `json:"base_url"`
	Reachable    bool            `json:"reachable"`
	Models       []llm.ModelInfo `json:"models"`
	DefaultModel string          `json:"default_model"`
	Error        *llm.Error      `json:"error,omitempty"`
	Demo         bool            `json:"demo"` // the built-in scripted model of "Try the demo" answers
	// DemoWorkspace is the demo's scratch folder while it runs: a conversation there gets the
	// tour (a read, then a command that asks for approval).
	DemoWorkspace string `json:"demo_workspace,omitempty"`
	// Switched is set when DefaultModel is not the main model of the settings: it was not
	// available (its provider did not answer, or does not list it), so another took its place.
	// The banner says so, and `tofu run` records it as a fallback event.
	Switched *store.Fallback `json:"switched,omitempty"`
}

// Options are what a Service asks.
type Options struct {
	// Provider is the provider of the current settings.
	Provider func() (llm.Provider, error)
	// Factory builds a provider for a configuration (Test connection).
	Factory func(cfg config.Config, keys gateway.Keys) (llm.Provider, error)
	// Config reads the settings (with the demo's provider while it runs).
	Config func() (config.Config, error)
	// Keys are a provider's stored API keys; ImagesKey the images API's.
	Keys      func(provider string) []string
	ImagesKey func() string
	// DemoOn says whether "Try the demo" runs; SetDemo makes p the only provider for this run
	// (nil ends the demo).
	DemoOn  func() bool
	SetDemo func(p *config.Provider)
	// Agents are the coding agents installed, offered as a conversation's model (nil: none).
	Agents func() []llm.ModelInfo
	// Emit sends an event to the user interface (it must not block).
	Emit func(topic string, data any)
}

// Service reports which models can be used.
type Service struct {
	o    Options
	demo demoServer

	mu       sync.Mutex
	switched *store.Fallback // the last status's replacement of the main model, if any
	warm     *warmStatus     // a status asked for at start (models_warm.go)
}

// publish sends st to the window and keeps what it says of the main model's replacement.
func (m *Service) publish(st Status) {
	m.mu.Lock()
	m.switched = st.Switched
	m.mu.Unlock()
	m.o.Emit(Topic, st)
}

// Switched is the main model's replacement the last status of m found, nil when none
// (session.Runner.Send records it with the message).
func Switched(m *Service) *store.Fallback {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.switched
}

// Status asks the providers for their models. It never fails: a problem is described in
// Error (the connection banner shows it with its hint). The first call after Warm takes the
// answer Warm asked for.
func (m *Service) Status() Status {
	if w := m.takeWarm(); w != nil {
		<-w.done
		m.publish(w.st)
		return w.st
	}
	return m.status()
}

func (m *Service) status() Status {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := Status{Models: []llm.ModelInfo{}, Demo: m.o.DemoOn()}
	if st.Demo {
		st.DemoWorkspace = m.demo.workspace()
	}
	set, err := m.o.Config()
	if err != nil {
		st.Error = &llm.Error{Kind: llm.ErrBadRequest, Message: err.Error(), Hint: "Fix the settings file, or delete it to start from the defaults."}
		m.publish(st)
		return st
	}
	first := set.Providers[0]
	st.Provider, st.ProviderType, st.DefaultModel = first.Name, first.Type, set.Models.Main
	p, err := m.o.Provider()
	if err != nil {
		st.Error = llm.AsError(err, first.Name)
		m.publish(st)
		return st
	}
	st.BaseURL = BaseURLOf(p)
	models, err := p.Models(ctx)
	st.Models = append(st.Models, models...)
	switch {
	case err != nil:
		st.Error = llm.AsError(err, first.Name)
		st.Reachable = len(models) > 0 || st.Error.Kind != llm.ErrUnreachable
	case len(models) == 0:
		st.Reachable = true
		st.Error = &llm.Error{Kind: llm.ErrNoModels, Provider: first.Name,
			Message: "Ollama is running but has no models installed.",
			Hint:    "Install one with `ollama pull qwen3:8b` (or any model), then refresh."}
		if first.Type != config.TypeOllama {
			st.Error.Message = "The provider " + first.Name + " lists no models."
			st.Error.Hint = "Check its base URL and API key in Settings, then refresh."
		}
	default:
		st.Reachable = true
	}
	if name := listedName(set, models, st.DefaultModel); name != "" {
		// The picker and the banner compare the names the providers list: "relay/relay" on
		// the first provider is listed as "relay".
		st.DefaultModel = name
	} else if len(models) > 0 {
		if st.DefaultModel != "" && st.Error == nil {
			hint := "Pick another model, or change the main model in Settings."
			if prov, name := set.Resolve(st.DefaultModel); prov.Type == config.TypeOllama {
				hint = "Run `ollama pull " + name + "`, or pick another model."
			}
			st.Error = &llm.Error{Kind: llm.ErrModelNotFound, Provider: first.Name,
				Message: "The main model " + st.DefaultModel + " is not available.", Hint: hint}
		}
		replacement := replacementOf(set, models)
		if st.DefaultModel != "" {
			// The reason is a clause: the notice and the banner end the sentence themselves.
			reason := "it is not among the models the providers list"
			if st.Error != nil && st.Error.Kind != llm.ErrModelNotFound {
				reason = strings.TrimRight(st.Error.Error(), ". ")
			}
			st.Switched = &store.Fallback{Model: replacement, From: st.DefaultModel, Reason: reason, Startup: true}
		}
		st.DefaultModel = replacement
	}
	if m.o.Agents != nil {
		// The coding agents installed, offered as a conversation's model (session.ExternalAgents).
		st.Models = append(st.Models, m.o.Agents()...)
	}
	m.publish(st)
	return st
}

// AgentProvider is the provider of a model that is a coding agent (ModelInfo.Provider).
const AgentProvider = "agent"

// hasModel says whether the providers list the model ref names.
func hasModel(set config.Config, models []llm.ModelInfo, ref string) bool {
	return listedName(set, models, ref) != ""
}

// listedName is the name under which the providers list the model ref names, "" when none
// does: a reference may be bare or qualified for the first provider ("relay/relay" is listed
// as "relay"), and Ollama's implicit ":latest" tag may be left out.
func listedName(set config.Config, models []llm.ModelInfo, ref string) string {
	if ref == "" {
		return ""
	}
	prov, name := set.Resolve(ref)
	canonical := set.Ref(prov.Name, name)
	for _, m := range models {
		if m.Name == ref || m.Name == canonical {
			return m.Name
		}
		if prov.Type == config.TypeOllama && m.Provider == prov.Name {
			if _, listed := set.Resolve(m.Name); withLatest(listed) == withLatest(name) {
				return m.Name
			}
		}
	}
	return ""
}

// withLatest adds Ollama's implicit tag to a bare model name.
func withLatest(name string) string {
	if strings.Contains(name, ":") {
		return name
	}
	return name + ":latest"
}

// replacementOf is the model that takes the place of a main model no provider lists: the
// first of the settings' fallback chain that is listed, else the first model listed.
func replacementOf(set config.Config, models []llm.ModelInfo) string {
	for _, ref := range set.Fallback {
		for _, m := range models {
			if hasModel(set, []llm.ModelInfo{m}, ref) {
				return m.Name
			}
		}
	}
	return models[0].Name
}

// New makes the service of o.
func New(o Options) *Service { return &Service{o: o} }

// BaseURLOf is the address a provider talks to, when it says.
func BaseURLOf(p llm.Provider) string {
	if b, ok := p.(interface{ BaseURL() string }); ok {
		return b.BaseURL()
	}
	return ""
}
