// Package ollama is Tofu's provider for a local Ollama server: native /api/chat streaming with a
// fixed num_ctx per model, and a refusal, instead of silent truncation, when a prompt will not fit.
package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/auth"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/version"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/httpapi"
)

// ProviderName is the name the provider reports and stamps on its errors.
const ProviderName = "ollama"

const (
	// DefaultContextCap caps the window Tofu runs a model with: long contexts cost memory and
	// speed on a desktop, and most models degrade long before their advertised length.
	DefaultContextCap = 32768
	// UnknownContextWindow is used when a model's metadata does not state its context length.
	UnknownContextWindow = 8192
	// DefaultOutputReserve is the room kept for the reply when the request sets no MaxTokens;
	// it is never more than a quarter of the window.
	DefaultOutputReserve = 2048
	// defaultMetaTimeout bounds /api/tags and /api/show, which answer at once on a live server.
	defaultMetaTimeout = 15 * time.Second
)

// TokenEstimator returns a conservative count of the tokens a request's prompt will take
// (messages and tool definitions). It may overestimate, never much underestimate.
type TokenEstimator func(llm.Request) int

// Option configures a Provider.
type Option func(*Provider)

// WithHTTPClient sets the HTTP client (it must not have an overall Timeout, which would cut
// long replies).
func WithHTTPClient(c *http.Client) Option { return func(p *Provider) { p.c.HTTP = c } }

// WithContextCap sets the largest window a model is run with (default DefaultContextCap).
func WithContextCap(n int) Option { return func(p *Provider) { p.ctxCap = n } }

// WithOutputReserve sets the tokens kept free for the reply when a request has no MaxTokens.
func WithOutputReserve(n int) Option { return func(p *Provider) { p.reserve = n } }

// WithTokenEstimator replaces EstimateTokens, e.g. with a real tokenizer.
func WithTokenEstimator(f TokenEstimator) Option { return func(p *Provider) { p.estimate = f } }

// Provider talks to one Ollama server. It is safe for concurrent use.
type Provider struct {
	c        httpapi.Client
	ctxCap   int
	reserve  int
	estimate TokenEstimator
	metaWait time.Duration
	// keepAlive is the user's keep_alive (WithKeepAlive); empty: keepAliveFor decides.
	keepAlive string

	mu    sync.Mutex
	shows map[string]modelEntry // by normalized name
}

var _ llm.Provider = (*Provider)(nil)

// modelEntry is what /api/show said about a model, kept per name and digest.
type modelEntry struct {
	digest string
	info   llm.ModelInfo
	chat   bool // has the completion capability
}

// DefaultBaseURL is the server an empty base URL means: OLLAMA_HOST, else
// http://127.0.0.1:11434 (Settings shows it as the placeholder of the field).
func DefaultBaseURL() string { return envconfig.Host().String() }

// New returns a provider for the Ollama server at baseURL; an empty baseURL means OLLAMA_HOST,
// or http://127.0.0.1:11434. A malformed URL is reported by the first call.
func New(baseURL string, opts ...Option) *Provider {
	p := &Provider{
		ctxCap:   DefaultContextCap,
		reserve:  DefaultOutputReserve,
		estimate: EstimateTokens,
		metaWait: defaultMetaTimeout,
		shows:    map[string]modelEntry{},
	}
	p.c = httpapi.Client{Name: ProviderName,
		Words:     httpapi.Words{TransportWords: llm.TransportWords{MidReply: msgMidReply, ServerHint: hintServerLog}, Malformed: msgMidReply},
		Header:    func(h http.Header) { h.Set("User-Agent", userAgent) },
		Prepare:   sign,
		Transport: func(ctx context.Context, err error) *llm.Error { return p.wrap(ctx, err, "", "") },
		Status:    p.statusError,
	}
	p.c.BadBase.Message = "the Ollama base URL is not valid"
	p.c.BadBase.Hint = "Set the base URL in Settings to something like http://127.0.0.1:11434."
	if strings.TrimSpace(baseURL) == "" {
		p.c.Base = envconfig.Host()
	} else {
		p.c.Base, p.c.BaseErr = httpapi.ParseBaseURL(baseURL, "http", "http://host:port")
	}
	for _, o := range opts {
		o(p)
	}
	if p.c.HTTP == nil {
		// Fail fast when nothing listens; the model's load before its first byte can take
		// minutes, and the context ends a reply.
		p.c.HTTP = httpapi.DefaultHTTPClient(5 * time.Second)
	}
	return p
}

// userAgent is what Ollama's own client says it is.
var userAgent = fmt.Sprintf("ollama/%s (%s %s) Go/%s", version.Version, runtime.GOARCH, runtime.GOOS, runtime.Version())

// sign signs a request with the user's Ollama key where Ollama's own client does: for
// ollama.com, or with OLLAMA_AUTH set.
func sign(r *http.Request) error {
	if !envconfig.UseAuth() && r.URL.Hostname() != "ollama.com" {
		return nil
	}
	now := strconv.FormatInt(time.Now().Unix(), 10)
	token, err := auth.Sign(r.Context(), fmt.Appendf(nil, "%s,%s?ts=%s", r.Method, r.URL.Path, now))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	q.Set("ts", now)
	r.URL.RawQuery = q.Encode()
	r.Header.Set("Authorization", token)
	return nil
}

// Name is the provider's name.
func (p *Provider) Name() string { return ProviderName }

// BaseURL is the server address in use.
func (p *Provider) BaseURL() string { return p.c.BaseURL() }

// Models lists the installed chat models with their context length, the window Tofu runs them
// with and their capabilities. Embedding-only models are left out. An empty list is not an error
// here; Status reports it as one.
func (p *Provider) Models(ctx context.Context) ([]llm.ModelInfo, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	mctx, cancel := context.WithTimeout(ctx, p.metaWait)
	defer cancel()
	var list api.ListResponse
	if err := p.c.JSON(ctx, mctx, httpapi.Request{Method: http.MethodGet, Path: "api/tags"}, "model list", &list); err != nil {
		return nil, p.wrap(ctx, err, "", "list models")
	}
	out := make([]llm.ModelInfo, 0, len(list.Models))
	for _, m := range list.Models {
		e, err := p.show(ctx, mctx, m.Name, m.Digest)
		if err != nil {
			werr := p.wrap(ctx, err, m.Name, "show model "+m.Name)
			if k := werr.Kind; k == llm.ErrUnreachable || k == llm.ErrInterrupted {
				return nil, werr
			}
			// One broken model should not hide the others: list it with what /api/tags knows.
			e = modelEntry{info: p.describe(m.Name, nil), chat: true}
		}
		if !e.chat {
			continue
		}
		info := e.info
		if info.Family == "" {
			info.Family = m.Details.Family
		}
		if info.ParameterSize == "" {
			info.ParameterSize = m.Details.ParameterSize
		}
		info.SizeBytes = m.Size
		out = append(out, info)
	}
	return out, nil
}

// Status is Models for the UI's connection banner: it fails with ErrUnreachable when no server
// answers and with ErrNoModels when the server has no chat model.
func (p *Provider) Status(ctx context.Context) ([]llm.ModelInfo, error) {
	models, err := p.Models(ctx)
	if err != nil {
		return nil, err
	}
	if len(models) == 0 {
		return nil, p.c.Errorf(llm.ErrNoModels, "Download one, e.g. `ollama pull qwen3:4b`, then refresh.",
			"Ollama at %s has no chat models installed", p.BaseURL())
	}
	return models, nil
}

// Model describes one model, asking the server only the first time.
func (p *Provider) Model(ctx context.Context, name string) (llm.ModelInfo, error) {
	if err := p.usable(); err != nil {
		return llm.ModelInfo{}, err
	}
	e, err := p.cachedShow(ctx, name)
	if err != nil {
		return llm.ModelInfo{}, p.wrap(ctx, err, name, "show model "+name)
	}
	return e.info, nil
}

// cachedShow returns the cached description of name under any digest, or asks the server.
func (p *Provider) cachedShow(ctx context.Context, name string) (modelEntry, error) {
	p.mu.Lock()
	e, ok := p.shows[normalizeName(name)]
	p.mu.Unlock()
	if ok {
		return e, nil
	}
	mctx, cancel := context.WithTimeout(ctx, p.metaWait)
	defer cancel()
	return p.show(ctx, mctx, name, "")
}

// show returns the description of name at digest, from the cache when the digest matches,
// asking under reqCtx (ctx is the caller's). An empty digest (unknown) is replaced on the next
// Models call.
func (p *Provider) show(ctx, reqCtx context.Context, name, digest string) (modelEntry, error) {
	key := normalizeName(name)
	p.mu.Lock()
	e, ok := p.shows[key]
	p.mu.Unlock()
	if ok && digest != "" && e.digest == digest {
		return e, nil
	}
	body, err := json.Marshal(api.ShowRequest{Model: name})
	if err != nil {
		return modelEntry{}, err
	}
	resp := &api.ShowResponse{}
	r := httpapi.Request{Method: http.MethodPost, Path: "api/show", Body: body, Model: name}
	if err := p.c.JSON(ctx, reqCtx, r, "model details", resp); err != nil {
		return modelEntry{}, err
	}
	e = modelEntry{digest: digest, info: p.describe(name, resp)}
	_, e.chat, _ = Capabilities(resp)
	p.mu.Lock()
	p.shows[key] = e
	p.mu.Unlock()
	return e, nil
}

// describe builds a ModelInfo from a /api/show answer (nil when unknown).
func (p *Provider) describe(name string, resp *api.ShowResponse) llm.ModelInfo {
	info := llm.ModelInfo{Name: name, Provider: ProviderName}
	if resp != nil {
		info.ContextLength = ContextLength(resp.ModelInfo)
		info.Family = resp.Details.Family
		info.ParameterSize = resp.Details.ParameterSize
		info.Quantization = resp.Details.QuantizationLevel
		info.Capabilities, _, info.CapabilitiesDerived = Capabilities(resp)
	}
	info.ContextWindow = p.window(info.ContextLength, 0)
	return info
}

// window is the num_ctx a model runs with: the caller's budget if it set one, else the model's
// length capped at ctxCap. Both stay the same for a model, so Ollama never reloads it.
func (p *Provider) window(contextLength, requested int) int {
	w := requested
	if w <= 0 {
		w = p.ctxCap
		if contextLength <= 0 {
			w = min(UnknownContextWindow, p.ctxCap)
		}
	}
	if contextLength > 0 {
		w = min(w, contextLength)
	}
	return w
}

// ContextLength reads "<arch>.context_length" from /api/show's model_info.
func ContextLength(info map[string]any) int {
	for k, v := range info {
		if !strings.HasSuffix(k, ".context_length") {
			continue
		}
		switch n := v.(type) {
		case float64:
			return int(n)
		case int:
			return n
		case int64:
			return int(n)
		}
	}
	return 0
}

// normalizeName adds Ollama's implicit ":latest" tag, so "qwen3" and "qwen3:latest" share a
// cache entry.
func normalizeName(name string) string {
	last := name[strings.LastIndex(name, "/")+1:]
	if !strings.Contains(last, ":") {
		return name + ":latest"
	}
	return name
}

func (p *Provider) usable() error { return p.c.Check() }
