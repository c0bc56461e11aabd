// Package anthropic is Tofu's provider for Anthropic's native Messages API: SSE streaming,
// thinking blocks kept for replay, tool use, and prompt-cache breakpoints placed by the caller.
package anthropic

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
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
func WithHTTPClient(c *http.Client) Option { return func(p *Provider) { p.http = c } }

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
	base      *url.URL
	baseErr   error
	apiKey    string
	http      *http.Client
	budget    int
	maxTokens int
	metaWait  time.Duration
}

var _ llm.Provider = (*Provider)(nil)

// New returns a provider for the API at baseURL (empty: DefaultBaseURL; a trailing /v1 is
// accepted) with apiKey. A malformed URL is reported by the first call.
func New(baseURL, apiKey string, opts ...Option) *Provider {
	p := &Provider{apiKey: apiKey, budget: DefaultThinkingBudget, maxTokens: DefaultMaxTokens, metaWait: defaultMetaTimeout}
	if strings.TrimSpace(baseURL) == "" {
		baseURL = DefaultBaseURL
	}
	p.base, p.baseErr = parseBaseURL(baseURL)
	for _, o := range opts {
		o(p)
	}
	if p.http == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		p.http = &http.Client{Transport: t}
	}
	return p
}

func parseBaseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("want https://host, got %q", s)
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	return u, nil
}

// Name is the provider's name.
func (p *Provider) Name() string { return ProviderName }

// BaseURL is the API address in use.
func (p *Provider) BaseURL() string {
	if p.base == nil {
		return ""
	}
	return p.base.String()
}

func (p *Provider) usable() error {
	if p.baseErr != nil {
		return &llm.Error{Kind: llm.ErrUnreachable, Provider: ProviderName, Err: p.baseErr,
			Message: "the Anthropic base URL is not valid", Hint: "Leave the base URL empty for " + DefaultBaseURL + "."}
	}
	return nil
}

func (p *Provider) newRequest(ctx context.Context, method, path string, body []byte, beta []string) (*http.Request, error) {
	u := p.base.JoinPath(path).String()
	var r *http.Request
	var err error
	if body != nil {
		r, err = http.NewRequestWithContext(ctx, method, u, strings.NewReader(string(body)))
	} else {
		r, err = http.NewRequestWithContext(ctx, method, u, nil)
	}
	if err != nil {
		return nil, err
	}
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("x-api-key", p.apiKey)
	r.Header.Set("anthropic-version", APIVersion)
	if len(beta) > 0 {
		r.Header.Set("anthropic-beta", strings.Join(beta, ","))
	}
	return r, nil
}

// Models lists the models from GET /v1/models. The API does not report context lengths; every
// current Claude model has 200k.
func (p *Provider) Models(ctx context.Context) ([]llm.ModelInfo, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	mctx, cancel := context.WithTimeout(ctx, p.metaWait)
	defer cancel()
	r, err := p.newRequest(mctx, http.MethodGet, "v1/models", nil, nil)
	if err != nil {
		return nil, p.wrap(ctx, err)
	}
	q := r.URL.Query()
	q.Set("limit", "1000")
	r.URL.RawQuery = q.Encode()
	resp, err := p.send(ctx, r, "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := llm.DecodeBounded(resp.Body, llm.MaxListBody, &list); err != nil {
		return nil, p.wrap(ctx, fmt.Errorf("decode model list: %w", err))
	}
	out := make([]llm.ModelInfo, 0, len(list.Data))
	for _, m := range list.Data {
		info := llm.ModelInfo{Name: m.ID, Provider: ProviderName, Family: "claude",
			Capabilities: []llm.Capability{llm.CapTools, llm.CapVision}}
		if strings.HasPrefix(m.ID, "claude-") {
			info.ContextLength, info.ContextWindow = contextLength, contextLength
			if !strings.HasPrefix(m.ID, "claude-3-") || strings.HasPrefix(m.ID, "claude-3-7") {
				info.Capabilities = append(info.Capabilities, llm.CapThinking)
			}
		}
		out = append(out, info)
	}
	return out, nil
}
