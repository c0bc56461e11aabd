package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/tofu-research/tofu/backend/llm"
)

// wire types of the request body.
type (
	messagesRequest struct {
		Model       string          `json:"model"`
		MaxTokens   int             `json:"max_tokens"`
		System      []*block        `json:"system,omitempty"`
		Messages    []*wireMessage  `json:"messages"`
		Tools       []*wireTool     `json:"tools,omitempty"`
		Stream      bool            `json:"stream"`
		Temperature *float64        `json:"temperature,omitempty"`
		Thinking    *thinkingConfig `json:"thinking,omitempty"`
	}
	thinkingConfig struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	}
	wireMessage struct {
		Role    string   `json:"role"`
		Content []*block `json:"content"`
	}
	block struct {
		Type         string          `json:"type"`
		Text         string          `json:"text,omitempty"`
		Thinking     string          `json:"thinking,omitempty"`
		Signature    string          `json:"signature,omitempty"`
		ID           string          `json:"id,omitempty"`
		Name         string          `json:"name,omitempty"`
		Input        json.RawMessage `json:"input,omitempty"`
		ToolUseID    string          `json:"tool_use_id,omitempty"`
		Content      string          `json:"content,omitempty"`
		Source       *imageSource    `json:"source,omitempty"`
		CacheControl *cacheControl   `json:"cache_control,omitempty"`
	}
	imageSource struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}
	cacheControl struct {
		Type string `json:"type"`
		TTL  string `json:"ttl,omitempty"`
	}
	wireTool struct {
		Name         string          `json:"name"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl *cacheControl   `json:"cache_control,omitempty"`
	}
)

// Params is what a /v1/messages body is made of besides the request: the provider's max_tokens
// and thinking budget. A trace keeps them so that Encode makes the same bytes again.
type Params struct {
	MaxTokens int `json:"max_tokens"`
	Budget    int `json:"budget"`
}

func (p *Provider) params() Params { return Params{MaxTokens: p.maxTokens, Budget: p.budget} }

// Encode is the body Stream sends for req with params (a JSON Params).
func Encode(req llm.Request, params json.RawMessage) ([]byte, error) {
	var ps Params
	if err := json.Unmarshal(params, &ps); err != nil {
		return nil, fmt.Errorf("anthropic request params: %w", err)
	}
	b, _, err := messagesBody(req, ps)
	return b, err
}

// messagesBody builds the /v1/messages body and the beta flags it needs.
func messagesBody(req llm.Request, ps Params) ([]byte, []string, error) {
	body := messagesRequest{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true, Temperature: req.Temperature}
	if body.MaxTokens <= 0 {
		body.MaxTokens = ps.MaxTokens
	}
	if req.Think {
		// budget_tokens must be at least 1024 and below max_tokens; thinking allows no temperature.
		budget := ps.Budget
		if b := Budget(req.Thinking); b > 0 {
			budget = b // the request's level (a conversation's choice) over the provider's
		}
		if body.MaxTokens <= budget {
			body.MaxTokens = budget + ps.MaxTokens
		}
		body.Thinking = &thinkingConfig{Type: "enabled", BudgetTokens: budget}
		body.Temperature = nil
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !json.Valid(schema) {
			return nil, nil, fmt.Errorf("tool %s: parameters are not valid JSON", t.Name)
		}
		body.Tools = append(body.Tools, &wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}

	// last[i] is the block that ends req.Messages[i], where a cache breakpoint after it goes.
	last := make([]*block, len(req.Messages))
	for i, m := range req.Messages {
		switch m.Role {
		case llm.RoleSystem:
			b := &block{Type: "text", Text: m.Content}
			body.System = append(body.System, b)
			last[i] = b
			continue
		case llm.RoleTool:
			// Tool results travel in a user message; consecutive ones share it.
			b := &block{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content}
			last[i] = appendBlocks(&body, "user", b)
			continue
		}
		blocks := contentBlocks(m)
		if len(blocks) == 0 {
			continue // the API refuses empty content
		}
		role := "user"
		if m.Role == llm.RoleAssistant {
			role = "assistant"
		}
		last[i] = appendBlocks(&body, role, blocks...)
	}
	beta := placeBreakpoints(&body, req, last)
	b, err := json.Marshal(body)
	return b, beta, err
}

// appendBlocks adds blocks to the last message when it has the same role (the API wants roles
// to alternate) or to a new one, and returns the last block.
func appendBlocks(body *messagesRequest, role string, blocks ...*block) *block {
	n := len(body.Messages)
	if n > 0 && body.Messages[n-1].Role == role {
		body.Messages[n-1].Content = append(body.Messages[n-1].Content, blocks...)
	} else {
		body.Messages = append(body.Messages, &wireMessage{Role: role, Content: blocks})
	}
	return blocks[len(blocks)-1]
}

// contentBlocks maps a user or assistant message. A reasoning without its signature cannot be
// replayed (the API would reject it) and is dropped; malformed tool arguments go back as {}.
func contentBlocks(m llm.Message) []*block {
	var out []*block
	if m.Reasoning != "" && m.ReasoningSignature != "" && m.Role == llm.RoleAssistant {
		out = append(out, &block{Type: "thinking", Thinking: m.Reasoning, Signature: m.ReasoningSignature})
	}
	for _, img := range m.Images {
		out = append(out, &block{Type: "image", Source: &imageSource{Type: "base64",
			MediaType: http.DetectContentType(img), Data: base64.StdEncoding.EncodeToString(img)}})
	}
	if m.Content != "" {
		out = append(out, &block{Type: "text", Text: m.Content})
	}
	for _, tc := range m.ToolCalls {
		input := tc.Arguments
		var obj map[string]any
		if json.Unmarshal(input, &obj) != nil || obj == nil {
			input = json.RawMessage(`{}`)
		}
		out = append(out, &block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
	}
	return out
}

// placeBreakpoints renders the caller's cache breakpoints as cache_control, at most
// MaxCacheBreakpoints: the prefix one first, then the latest message ones (they cover the
// most). It returns the beta flag a 1h TTL needs.
func placeBreakpoints(body *messagesRequest, req llm.Request, last []*block) []string {
	cc := func(ttl string) *cacheControl { return &cacheControl{Type: "ephemeral", TTL: ttl} }
	used, hour := 0, false
	if req.CachePrefix != "" {
		switch {
		case len(body.System) > 0:
			body.System[len(body.System)-1].CacheControl = cc(req.CachePrefix)
			used++
		case len(body.Tools) > 0:
			body.Tools[len(body.Tools)-1].CacheControl = cc(req.CachePrefix)
			used++
		}
		hour = req.CachePrefix == "1h"
	}
	bps := append([]llm.CacheBreakpoint(nil), req.CacheBreakpoints...)
	sort.SliceStable(bps, func(i, j int) bool { return bps[i].MessageIndex > bps[j].MessageIndex })
	for _, bp := range bps {
		if used >= MaxCacheBreakpoints {
			break
		}
		if bp.MessageIndex < 0 || bp.MessageIndex >= len(last) || last[bp.MessageIndex] == nil || last[bp.MessageIndex].CacheControl != nil {
			continue
		}
		last[bp.MessageIndex].CacheControl = cc(bp.TTL)
		used++
		hour = hour || bp.TTL == "1h"
	}
	if hour {
		return []string{"extended-cache-ttl-2025-04-11"}
	}
	return nil
}
