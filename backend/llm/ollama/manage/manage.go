// Package manage looks after the models of a local Ollama server for the window: what is
// installed (size, parameters, quantisation, context length, capabilities) and what is loaded,
// pulling with progress, deleting, and starting `ollama serve` when it is installed but stopped.
package manage

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/httpapi"
	"github.com/tofu-research/tofu/backend/llm/ollama"
)

// metaWait bounds /api/tags, /api/show and /api/ps, which a live server answers at once.
const metaWait = 15 * time.Second

// Manager talks to one Ollama server.
type Manager struct {
	base     *url.URL
	c        *api.Client
	registry *http.Client // PlanPull's manifest requests
}

// New returns a manager for the server at baseURL ("" means OLLAMA_HOST, else
// http://127.0.0.1:11434).
func New(baseURL string) (*Manager, error) {
	if strings.TrimSpace(baseURL) == "" {
		baseURL = ollama.DefaultBaseURL()
	}
	u, err := httpapi.ParseBaseURL(baseURL, "http", "http://host:port")
	if err != nil {
		return nil, err
	}
	// No overall timeout: a pull of many gigabytes is one response. Contexts bound the rest.
	return &Manager{base: u, c: api.NewClient(u, httpapi.DefaultHTTPClient(5*time.Second)), registry: httpapi.DefaultHTTPClient(10 * time.Second)}, nil
}

// BaseURL is the server's address.
func (m *Manager) BaseURL() string { return m.base.String() }

// Model is an installed model as Settings and the model picker show it.
type Model struct {
	Name          string           `json:"name"`
	Digest        string           `json:"digest"`
	SizeBytes     int64            `json:"size_bytes"`
	ModifiedAt    time.Time        `json:"modified_at"`
	Family        string           `json:"family,omitempty"`
	ParameterSize string           `json:"parameter_size,omitempty"`
	Quantization  string           `json:"quantization,omitempty"`
	ContextLength int              `json:"context_length,omitempty"`
	Capabilities  []llm.Capability `json:"capabilities"`
	// CapabilitiesDerived: the server lists none (before Ollama 0.6.4); they were read from
	// the template and model_info, and the UI says so.
	CapabilitiesDerived bool `json:"capabilities_derived,omitempty"`
	Embedding           bool `json:"embedding,omitempty"` // embeds only: no chat
	// Loaded is set while the model is in memory (/api/ps).
	Loaded *Loaded `json:"loaded,omitempty"`
	// Error is why /api/show failed for it; the rest is what /api/tags said.
	Error string `json:"error,omitempty"`
}

// Loaded is a model in memory.
type Loaded struct {
	MemoryBytes   int64     `json:"memory_bytes"` // all it holds, GPU memory included
	VRAMBytes     int64     `json:"vram_bytes"`
	ContextLength int       `json:"context_length,omitempty"` // the window it was loaded with
	ExpiresAt     time.Time `json:"expires_at"`
}

// List is the installed models, newest first, each with its details and whether it is loaded.
func (m *Manager) List(ctx context.Context) ([]Model, error) {
	ctx, cancel := context.WithTimeout(ctx, metaWait)
	defer cancel()
	list, err := m.c.List(ctx)
	if err != nil {
		return nil, m.serverError(ctx, err, "list the models")
	}
	loaded := map[string]Loaded{}
	if ps, err := m.c.ListRunning(ctx); err == nil {
		for _, p := range ps.Models {
			loaded[p.Name] = Loaded{MemoryBytes: p.Size, VRAMBytes: p.SizeVRAM, ContextLength: p.ContextLength, ExpiresAt: p.ExpiresAt}
		}
	}
	out := make([]Model, 0, len(list.Models))
	for _, lm := range list.Models {
		md := Model{Name: lm.Name, Digest: lm.Digest, SizeBytes: lm.Size, ModifiedAt: lm.ModifiedAt,
			Family: lm.Details.Family, ParameterSize: lm.Details.ParameterSize, Quantization: lm.Details.QuantizationLevel,
			Capabilities: []llm.Capability{}}
		if l, ok := loaded[lm.Name]; ok {
			md.Loaded = &l
		}
		show, err := m.c.Show(ctx, &api.ShowRequest{Model: lm.Name})
		if err != nil {
			if ctx.Err() != nil {
				return nil, m.serverError(ctx, err, "describe "+lm.Name)
			}
			md.Error = err.Error()
			out = append(out, md)
			continue
		}
		caps, chat, derived := ollama.Capabilities(show)
		md.Capabilities = append(md.Capabilities, caps...)
		md.CapabilitiesDerived, md.Embedding = derived, !chat
		md.ContextLength = ollama.ContextLength(show.ModelInfo)
		md.Family = cmp.Or(show.Details.Family, md.Family)
		md.ParameterSize = cmp.Or(show.Details.ParameterSize, md.ParameterSize)
		md.Quantization = cmp.Or(show.Details.QuantizationLevel, md.Quantization)
		out = append(out, md)
	}
	slices.SortStableFunc(out, func(a, b Model) int { return b.ModifiedAt.Compare(a.ModifiedAt) })
	return out, nil
}

// Running says whether the server answers.
func (m *Manager) Running(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := m.c.Version(ctx)
	return err == nil
}

// Delete removes an installed model (its blobs go when no other model uses them).
func (m *Manager) Delete(ctx context.Context, name string) error {
	if strings.TrimSpace(name) == "" {
		return &llm.Error{Kind: llm.ErrBadRequest, Provider: ollama.ProviderName, Message: "no model named to delete"}
	}
	ctx, cancel := context.WithTimeout(ctx, metaWait)
	defer cancel()
	if err := m.c.Delete(ctx, &api.DeleteRequest{Model: name}); err != nil {
		if se, ok := err.(api.StatusError); ok && se.StatusCode == http.StatusNotFound {
			return &llm.Error{Kind: llm.ErrModelNotFound, Provider: ollama.ProviderName, StatusCode: se.StatusCode,
				Message: "no model named " + name + " is installed", Hint: "Refresh the list: it may have been deleted already."}
		}
		return m.serverError(ctx, err, "delete "+name)
	}
	return nil
}
