// Package anthropic is Tofu's provider for Anthropic's native Messages API: SSE streaming,
// thinking blocks kept for replay, tool use, and prompt-cache breakpoints placed by the caller.
package anthropic

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/httpapi"
)

const (
	// ProviderName is the name the provider reports and stamps on its errors.
	ProviderName = "anthropic"
	// DefaultBaseURL is Anthropic's API.
	DefaultBaseURL = "https://api.anthropic.com"
	// APIVersion is the anthropic-version header the wire types follow.
	APIVersion = "2023-06-01"
	// DefaultMaxTokens is sent when a request sets none: the API requires max_tokens.
	DefaultMaxTokens = 8192
	// DefaultThinkingBudget is the budget_tokens of extended thinking.
	DefaultThinkingBudget = 4096
	// MaxCacheBreakpoints is how many cache_control markers the API accepts.
	MaxCacheBreakpoints = 4
	// contextLength is the window of every current Claude model; /v1/models does not say.
	contextLength      = 200000
	defaultMetaTimeout = 15 * time.Second
)

// Option configures a Provider.
type Option func(*Provider)

// WithHTTPClient sets the HTTP client (no overall Timeout, and no retries: they are the
// router's).
func WithHTTPClient(c *http.Client) Option { return func(p *Provider) { p.c.HTTP = c } }

// Budget is the budget_tokens of a thinking level (the settings' or a conversation's): 0 for
// off or no level.
func Budget(level string) int {
	switch level {
	case "low":
		return 2048
	case "medium":
		return 8192
	case "high":
		return 24576
	}
	return 0
}

// WithThinkingBudget sets budget_tokens for requests with Think on (at least 1024).
func WithThinkingBudget(n int) Option { return func(p *Provider) { p.budget = max(n, 1024) } }

// WithMaxTokens sets the max_tokens sent when a request has no MaxTokens.
func WithMaxTokens(n int) Option { return func(p *Provider) { p.maxTokens = n } }

// Provider talks to Anthropic's Messages API. It is safe for concurrent use.
type Provider struct {
	c         httpapi.Client
	apiKey    string
	budget    int
	maxTokens int
	metaWait  time.Duration
}

var _ llm.Provider = (*Provider)(nil)

// New returns a provider for the API at baseURL (empty: DefaultBaseURL; a trailing /v1 is
// accepted) with apiKey. A malformed URL is reported by the first call.
func New(baseURL, apiKey string, opts ...Option) *Provider {
	p := &Provider{apiKey: apiKey, budget: DefaultThinkingBudget, maxTokens: DefaultMaxTokens, metaWait: defaultMetaTimeout}
	p.c = httpapi.Client{Name: ProviderName,
		Words: httpapi.Words{TransportWords: llm.TransportWords{MidReply: msgMidReply, ServerHint: hintServer,
			UnreachHint: hintUnreach, Unexpected: "unexpected answer from Anthropic"},
			Malformed: "Anthropic sent a malformed event"},
		Header: p.header,
		Status: func(status int, body []byte, model string) *llm.Error {
			return classify(status, parseErrorBody(body), model)
		},
	}
	p.c.BadBase.Message = "the Anthropic base URL is not valid"
	p.c.BadBase.Hint = "Leave the base URL empty for " + DefaultBaseURL + "."
	if strings.TrimSpace(baseURL) == "" {
		baseURL = DefaultBaseURL
	}
	p.c.Base, p.c.BaseErr = parseBaseURL(baseURL)
	for _, o := range opts {
		o(p)
	}
	if p.c.HTTP == nil {
		p.c.HTTP = httpapi.DefaultHTTPClient(10 * time.Second)
	}
	return p
}

func parseBaseURL(s string) (*url.URL, error) {
	u, err := httpapi.ParseBaseURL(s, "https", "https://host")
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	return u, nil
}

// Name is the provider's name.
func (p *Provider) Name() string { return ProviderName }

// BaseURL is the API address in use.
func (p *Provider) BaseURL() string { return p.c.BaseURL() }

// header sets the key and the API version on a request.
func (p *Provider) header(h http.Header) {
	h.Set("x-api-key", p.apiKey)
	h.Set("anthropic-version", APIVersion)
}

// Models lists the models from GET /v1/models. The API does not report context lengths or
// capabilities: every current Claude model has 200k and takes tools and images. Another model
// behind an Anthropic-compatible server is listed without capabilities (the known families
// decide, llm.SeesImages).
func (p *Provider) Models(ctx context.Context) ([]llm.ModelInfo, error) {
	if err := p.c.Check(); err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	r := httpapi.Request{Method: http.MethodGet, Path: "v1/models", Query: url.Values{"limit": {"1000"}}}
	mctx, cancel := context.WithTimeout(ctx, p.metaWait)
	defer cancel()
	if err := p.c.JSON(ctx, mctx, r, "model list", &list); err != nil {
		return nil, p.c.Wrap(ctx, err)
	}
	out := make([]llm.ModelInfo, 0, len(list.Data))
	for _, m := range list.Data {
		info := llm.ModelInfo{Name: m.ID, Provider: ProviderName}
		if strings.HasPrefix(m.ID, "claude-") {
			info.Family, info.Capabilities = "claude", []llm.Capability{llm.CapTools, llm.CapVision}
			info.ContextLength, info.ContextWindow = contextLength, contextLength
			if !strings.HasPrefix(m.ID, "claude-3-") || strings.HasPrefix(m.ID, "claude-3-7") {
				info.Capabilities = append(info.Capabilities, llm.CapThinking)
			}
		}
		out = append(out, info)
	}
	return out, nil
}
