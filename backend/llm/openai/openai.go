// Package openai is Tofu's provider for OpenAI-compatible chat completions servers (vLLM,
// llama.cpp, LM Studio, DeepSeek, GLM, OpenRouter, OpenAI) over a small hand-written SSE client.
package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/httpapi"
)

// ProviderName is the default name the provider reports and stamps on its errors.
const ProviderName = "openai"

// DefaultBaseURL is OpenAI's API, used when no base URL is set (the Settings field shows it as
// its placeholder, so an empty field means what it shows).
const DefaultBaseURL = "https://api.openai.com/v1"

// defaultMetaTimeout bounds GET /models, which answers at once on a live server.
const defaultMetaTimeout = 15 * time.Second

// Option configures a Provider.
type Option func(*Provider)

// WithHTTPClient sets the HTTP client (it must not have an overall Timeout, which would cut
// long replies). It must not retry: retries belong to the router.
func WithHTTPClient(c *http.Client) Option { return func(p *Provider) { p.c.HTTP = c } }

// WithName sets the name the provider reports, e.g. "deepseek" or "openrouter".
func WithName(name string) Option { return func(p *Provider) { p.c.Name = name } }

// WithHeader adds a header to every request (OpenRouter's HTTP-Referer and X-Title, say).
func WithHeader(key, value string) Option {
	return func(p *Provider) { p.headers.Set(key, value) }
}

// WithMaxCompletionTokens sends MaxTokens as max_completion_tokens, which OpenAI's reasoning
// models require, instead of max_tokens, which every other server knows. It is on by default
// for api.openai.com.
func WithMaxCompletionTokens(on bool) Option { return func(p *Provider) { p.maxCompletion = &on } }

// Provider talks to one OpenAI-compatible server. It is safe for concurrent use.
type Provider struct {
	c             httpapi.Client
	apiKey        string
	headers       http.Header
	maxCompletion *bool
	metaWait      time.Duration
}

var _ llm.Provider = (*Provider)(nil)

// New returns a provider for the server at baseURL, the URL the server's paths hang off (e.g.
// https://api.openai.com/v1; a URL without a path gets /v1; empty: DefaultBaseURL). apiKey may
// be empty for local servers. A malformed URL is reported by the first call.
func New(baseURL, apiKey string, opts ...Option) *Provider {
	p := &Provider{apiKey: apiKey, headers: http.Header{}, metaWait: defaultMetaTimeout}
	p.c = httpapi.Client{Name: ProviderName,
		Words: httpapi.Words{TransportWords: llm.TransportWords{MidReply: msgMidReply, ServerHint: hintServer,
			UnreachHint: "Check that the server is running and the base URL in Settings.",
			Unexpected:  "unexpected answer from the model server"},
			Malformed: "the model server sent a malformed event"},
		Header: p.header,
		Status: func(status int, body []byte, model string) *llm.Error {
			return classify(p.c.Name, p.BaseURL(), status, parseErrorBody(body), model)
		},
	}
	p.c.BadBase.Message = "the base URL is not valid"
	p.c.BadBase.Hint = "Set the base URL in Settings to something like http://127.0.0.1:8000/v1."
	p.c.Base, p.c.BaseErr = parseBaseURL(baseURL)
	for _, o := range opts {
		o(p)
	}
	if p.c.HTTP == nil {
		p.c.HTTP = httpapi.DefaultHTTPClient(5 * time.Second)
	}
	if p.maxCompletion == nil {
		p.maxCompletion = new(p.c.Base != nil && p.c.Base.Hostname() == "api.openai.com")
	}
	return p
}

func parseBaseURL(s string) (*url.URL, error) {
	if strings.TrimSpace(s) == "" {
		s = DefaultBaseURL
	}
	u, err := httpapi.ParseBaseURL(s, "http", "http(s)://host[:port]/v1")
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if u.Path == "" {
		u.Path = "/v1"
	}
	return u, nil
}

// Name is the provider's name.
func (p *Provider) Name() string { return p.c.Name }

// BaseURL is the server address in use.
func (p *Provider) BaseURL() string { return p.c.BaseURL() }

func (p *Provider) usable() error { return p.c.Check() }

// header sets the key and the extra headers on a request.
func (p *Provider) header(h http.Header) {
	if p.apiKey != "" {
		h.Set("Authorization", "Bearer "+p.apiKey)
	}
	for k, v := range p.headers {
		h[k] = v
	}
}

// Models lists the server's models from GET /models, with the context length when the server
// reports one (OpenRouter and LM Studio's context_length, vLLM's max_model_len, llama.cpp's
// meta.n_ctx_train).
func (p *Provider) Models(ctx context.Context) ([]llm.ModelInfo, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var list struct {
		Data []map[string]any `json:"data"`
	}
	mctx, cancel := context.WithTimeout(ctx, p.metaWait)
	defer cancel()
	if err := p.c.JSON(ctx, mctx, httpapi.Request{Method: http.MethodGet, Path: "models"}, "model list", &list); err != nil {
		return nil, p.c.Wrap(ctx, err)
	}
	out := make([]llm.ModelInfo, 0, len(list.Data))
	for _, m := range list.Data {
		id, _ := m["id"].(string)
		if id == "" {
			continue
		}
		info := llm.ModelInfo{Name: id, Provider: p.c.Name, ContextLength: modelContext(m)}
		info.ContextWindow = info.ContextLength
		info.Capabilities = modelCaps(m)
		out = append(out, info)
	}
	return out, nil
}

// modelContext finds a context length in a /models entry, under the names servers use.
func modelContext(m map[string]any) int {
	num := func(v any) int {
		f, _ := v.(float64)
		return int(f)
	}
	for _, k := range []string{"context_length", "max_model_len", "context_window", "max_context_length"} {
		if n := num(m[k]); n > 0 {
			return n
		}
	}
	for _, k := range []string{"meta", "top_provider"} {
		if sub, ok := m[k].(map[string]any); ok {
			for _, kk := range []string{"n_ctx_train", "context_length", "n_ctx"} {
				if n := num(sub[kk]); n > 0 {
					return n
				}
			}
		}
	}
	return 0
}

// modelCaps reads OpenRouter's supported_parameters and input modalities; other servers say
// nothing, and the caller decides.
func modelCaps(m map[string]any) []llm.Capability {
	var caps []llm.Capability
	if params, ok := m["supported_parameters"].([]any); ok {
		for _, p := range params {
			switch p {
			case "tools":
				caps = append(caps, llm.CapTools)
			case "reasoning":
				caps = append(caps, llm.CapThinking)
			}
		}
	}
	if arch, ok := m["architecture"].(map[string]any); ok {
		if mods, ok := arch["input_modalities"].([]any); ok {
			for _, x := range mods {
				if x == "image" {
					caps = append(caps, llm.CapVision)
				}
			}
		}
	}
	return caps
}

// wire types of the request body.
type (
	chatRequest struct {
		Model               string         `json:"model"`
		Messages            []wireMessage  `json:"messages"`
		Tools               []wireTool     `json:"tools,omitempty"`
		Stream              bool           `json:"stream"`
		StreamOptions       map[string]any `json:"stream_options,omitempty"`
		MaxTokens           int            `json:"max_tokens,omitempty"`
		MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
		Temperature         *float64       `json:"temperature,omitempty"`
	}
	wireMessage struct {
		Role       string         `json:"role"`
		Content    any            `json:"content"` // string, []contentPart or nil
		ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
		Name       string         `json:"name,omitempty"`
	}
	contentPart struct {
		Type     string            `json:"type"`
		Text     string            `json:"text,omitempty"`
		ImageURL map[string]string `json:"image_url,omitempty"`
	}
	wireToolCall struct {
		ID       string       `json:"id"`
		Type     string       `json:"type"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	wireTool struct {
		Type     string       `json:"type"`
		Function wireToolSpec `json:"function"`
	}
	wireToolSpec struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
)

// Params is what a /chat/completions body is made of besides the request: whether the output
// bound is sent as max_completion_tokens (OpenAI's own API) or max_tokens. A trace keeps it so
// that Encode makes the same bytes again.
type Params struct {
	MaxCompletion bool `json:"max_completion,omitempty"`
}

func (p *Provider) params() Params { return Params{MaxCompletion: *p.maxCompletion} }

// Encode is the body Stream sends for req with params (a JSON Params).
func Encode(req llm.Request, params json.RawMessage) ([]byte, error) {
	var ps Params
	if err := json.Unmarshal(params, &ps); err != nil {
		return nil, fmt.Errorf("openai request params: %w", err)
	}
	return chatBody(req, ps)
}

// chatBody builds the /chat/completions body. Reasoning is not sent back: most servers reject
// or ignore it in history.
func chatBody(req llm.Request, ps Params) ([]byte, error) {
	body := chatRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: map[string]any{"include_usage": true},
		Temperature:   req.Temperature,
	}
	if ps.MaxCompletion {
		body.MaxCompletionTokens = req.MaxTokens
	} else {
		body.MaxTokens = req.MaxTokens
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, toWire(m))
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !json.Valid(params) {
			return nil, fmt.Errorf("tool %s: parameters are not valid JSON", t.Name)
		}
		body.Tools = append(body.Tools, wireTool{Type: "function",
			Function: wireToolSpec{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return json.Marshal(body)
}

func toWire(m llm.Message) wireMessage {
	w := wireMessage{Role: string(m.Role), Content: m.Content}
	switch {
	case m.Role == llm.RoleTool:
		w.ToolCallID = m.ToolCallID
	case len(m.Images) > 0:
		var parts []contentPart
		if m.Content != "" {
			parts = append(parts, contentPart{Type: "text", Text: m.Content})
		}
		for _, img := range m.Images {
			uri := "data:" + http.DetectContentType(img) + ";base64," + base64.StdEncoding.EncodeToString(img)
			parts = append(parts, contentPart{Type: "image_url", ImageURL: map[string]string{"url": uri}})
		}
		w.Content = parts
	case m.Role == llm.RoleAssistant && m.Content == "" && len(m.ToolCalls) > 0:
		w.Content = nil
	}
	for _, tc := range m.ToolCalls {
		// Arguments go back as the model wrote them, malformed or not: the tool's error answer
		// refers to them.
		args := string(tc.Arguments)
		if args == "" {
			args = "{}"
		}
		w.ToolCalls = append(w.ToolCalls, wireToolCall{ID: tc.ID, Type: "function",
			Function: wireFunction{Name: tc.Name, Arguments: args}})
	}
	return w
}
