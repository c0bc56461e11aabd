package app

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// ModelStatus is what the model picker and the connection banner show.
type ModelStatus struct {
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

// ModelService reports which models can be used.
type ModelService struct {
	providers *providerCache
	settings  *SettingsService
	emit      Emitter
	demo      demoServer
	agents    *session.ExternalAgents // installed coding agents, offered as models

	mu       sync.Mutex
	switched *store.Fallback // the last status's replacement of the main model, if any
	warm     *warmStatus     // a status asked for at start (models_warm.go)
}

// publish sends st to the window and keeps what it says of the main model's replacement.
func (m *ModelService) publish(st ModelStatus) {
	m.mu.Lock()
	m.switched = st.Switched
	m.mu.Unlock()
	m.emit.Emit(TopicModels, st)
}

// lastSwitched is the main model's replacement the last status found, nil when none.
func (m *ModelService) lastSwitched() *store.Fallback {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.switched
}

// Status asks the providers for their models. It never fails: a problem is described in
// Error (the connection banner shows it with its hint). The first call after Warm takes the
// answer Warm asked for.
func (m *ModelService) Status() ModelStatus {
	if w := m.takeWarm(); w != nil {
		<-w.done
		m.publish(w.st)
		return w.st
	}
	return m.status()
}

func (m *ModelService) status() ModelStatus {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := ModelStatus{Models: []llm.ModelInfo{}, Demo: m.settings.demoOn()}
	if st.Demo {
		st.DemoWorkspace = m.demo.workspace()
	}
	set, err := m.settings.config()
	if err != nil {
		st.Error = &llm.Error{Kind: llm.ErrBadRequest, Message: err.Error(), Hint: "Fix the settings file, or delete it to start from the defaults."}
		m.publish(st)
		return st
	}
	first := set.Providers[0]
	st.Provider, st.ProviderType, st.DefaultModel = first.Name, first.Type, set.Models.Main
	p, err := m.providers.get()
	if err != nil {
		st.Error = llm.AsError(err, first.Name)
		m.publish(st)
		return st
	}
	st.BaseURL = baseURLOf(p)
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
	if m.agents != nil {
		// The coding agents installed, offered as a conversation's model (session.ExternalAgents).
		for _, a := range m.agents.Installed() {
			st.Models = append(st.Models, llm.ModelInfo{Name: a.ID, Provider: AgentProvider, Family: a.Label})
		}
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
