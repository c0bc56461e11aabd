// Package llm is Tofu's model abstraction: one message, stream and usage shape over every
// provider, so nothing above it knows which model it talks to.
package llm

import (
	"context"
	"encoding/json"
	"iter"
)

// Role of a message in a conversation.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one provider-neutral chat message.
type Message struct {
	Role      Role   `json:"role"`
	Content   string `json:"content,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningSignature is the provider's proof that Reasoning is its own (Anthropic's thinking
	// signature); a reasoning without one cannot be replayed to that provider.
	ReasoningSignature string     `json:"reasoning_signature,omitempty"`
	Images             [][]byte   `json:"images,omitempty"`
	ToolCalls          []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName identify the call a RoleTool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
}

// ToolCall is a model's request to run a tool. Arguments are kept as raw JSON so a malformed
// call reaches the tool runtime intact and can be answered with a precise error.
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// MarshalJSON keeps a call whose arguments are not valid JSON (a model's mistake) encodable:
// such arguments are written as text in arguments_text, so reading the call back gives the
// bytes the model wrote (replayed as written, not as an escaped JSON string).
func (tc ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	if len(tc.Arguments) > 0 && !json.Valid(tc.Arguments) {
		return json.Marshal(struct {
			plain
			Arguments string `json:"arguments,omitempty"`
			Text      string `json:"arguments_text"`
		}{plain: plain(tc), Text: string(tc.Arguments)})
	}
	return json.Marshal(plain(tc))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (tc *ToolCall) UnmarshalJSON(b []byte) error {
	type plain ToolCall
	var w struct {
		plain
		Text *string `json:"arguments_text"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*tc = ToolCall(w.plain)
	if w.Text != nil {
		tc.Arguments = json.RawMessage(*w.Text)
	}
	return nil
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema object
}

// Request is one call to a model.
type Request struct {
	Model    string     `json:"model"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// ContextWindow is the window the caller budgeted for (Ollama's num_ctx). Zero lets the
	// provider choose its fixed per-model value.
	ContextWindow int      `json:"context_window,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	Think         bool     `json:"think,omitempty"`
	// Thinking is this request's reasoning effort (off, low, medium, high; a conversation's
	// Enhance choice): the gateway uses it over the settings' level, and Anthropic sizes its
	// thinking budget by it. Empty: the settings' level.
	Thinking string `json:"thinking,omitempty"`
	// CachePrefix, when set, is the TTL ("5m" or "1h") of a prompt-cache breakpoint after the
	// tools and system prompt. CacheBreakpoints mark later ones; the context layer places them,
	// providers without explicit caching ignore both.
	CachePrefix      string            `json:"cache_prefix,omitempty"`
	CacheBreakpoints []CacheBreakpoint `json:"cache_breakpoints,omitempty"`
}

// CacheBreakpoint ends a cacheable prompt prefix after Messages[MessageIndex].
type CacheBreakpoint struct {
	MessageIndex int    `json:"message_index"`
	TTL          string `json:"ttl,omitempty"` // "5m" (default) or "1h"
}

// EventKind says which field of an Event is set.
type EventKind string

const (
	EventText      EventKind = "text"      // Text holds a delta of the answer
	EventReasoning EventKind = "reasoning" // Text holds a delta of the reasoning
	EventToolCall  EventKind = "tool_call" // ToolCall holds one complete call
	EventUsage     EventKind = "usage"     // Usage holds the call's token counts
	EventDone      EventKind = "done"      // StopReason says why the model stopped
	// EventNotice is something the user should know about the call (Text), e.g. that tools
	// were left out because the model cannot use them.
	EventNotice EventKind = "notice"
	// EventRetry (from the router) says the reply so far is void: discard every event since
	// the call began or the last EventRetry; the call is re-run. Text holds the reason.
	EventRetry EventKind = "retry"
	// EventFallback (from the router) says another model now takes the call; Text is its name
	// and Fallback says which model gave it up and why.
	EventFallback EventKind = "fallback"
)

// Fallback describes a switch to another model: From gave the call up, To takes it, Reason is
// why (the failure, or that From's circuit is open after failing).
type Fallback struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// Event is one item of a model's streamed answer.
type Event struct {
	Kind       EventKind `json:"kind"`
	Text       string    `json:"text,omitempty"`
	ToolCall   *ToolCall `json:"tool_call,omitempty"`
	Usage      *Usage    `json:"usage,omitempty"`
	StopReason string    `json:"stop_reason,omitempty"`
	// Signature, on an EventReasoning with no Text, signs the reasoning streamed so far; store
	// it in Message.ReasoningSignature.
	Signature string `json:"signature,omitempty"`
	// Fallback, on an EventFallback, names both models and the reason.
	Fallback *Fallback `json:"fallback,omitempty"`
}

// Usage is what one model call cost, as the provider reported it.
type Usage struct {
	Model            string `json:"model,omitempty"`
	InputTokens      int    `json:"input_tokens"`
	OutputTokens     int    `json:"output_tokens"`
	ReasoningTokens  int    `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int    `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int    `json:"cache_write_tokens,omitempty"`
	// CacheReported says the provider reports cached tokens (zero then means none was read
	// from its cache); without it CacheReadTokens says nothing.
	CacheReported bool `json:"cache_reported,omitempty"`
	// LocalInputTokens and LocalOutputTokens are Tofu's own count (o200k BPE) of the request and
	// the reply, stored beside the provider's figures so the two can be compared.
	LocalInputTokens  int `json:"local_input_tokens,omitempty"`
	LocalOutputTokens int `json:"local_output_tokens,omitempty"`
	// CostUSD is the call's price from the user's price table (0 for local models).
	CostUSD float64 `json:"cost_usd,omitempty"`
	// ContextWindow is the window the call ran with (num_ctx for Ollama).
	ContextWindow int   `json:"context_window,omitempty"`
	DurationMS    int64 `json:"duration_ms,omitempty"`
	// Purpose names a side call made for the turn rather than the conversation's own call
	// ("memory_rerank"): it costs like any call, but its context is not the conversation's.
	Purpose string `json:"purpose,omitempty"`
}

// Capability is something a model can do beyond plain completion.
type Capability string

const (
	CapTools    Capability = "tools"
	CapVision   Capability = "vision"
	CapThinking Capability = "thinking"
)

// ModelInfo describes a model a provider can serve.
type ModelInfo struct {
	Name          string       `json:"name"`
	Provider      string       `json:"provider"`
	ContextLength int          `json:"context_length,omitempty"` // what the model supports
	ContextWindow int          `json:"context_window,omitempty"` // what Tofu runs it with
	Capabilities  []Capability `json:"capabilities,omitempty"`
	Family        string       `json:"family,omitempty"`
	ParameterSize string       `json:"parameter_size,omitempty"`
	Quantization  string       `json:"quantization,omitempty"` // Ollama's quantization_level (Q4_K_M, F16, …)
	SizeBytes     int64        `json:"size_bytes,omitempty"`
	// CapabilitiesDerived: the server did not list capabilities (Ollama before 0.6.4), so they
	// were read from the template and model_info as Ollama derives them.
	CapabilitiesDerived bool `json:"capabilities_derived,omitempty"`
}

// Has reports whether the model has capability c.
func (m ModelInfo) Has(c Capability) bool {
	for _, x := range m.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// Stream yields a model's answer event by event. A non-nil error ends it; breaking out of the
// range loop cancels the underlying request.
type Stream = iter.Seq2[Event, error]

// StreamOf turns run, which yields events until it returns, into a Stream; an error run
// returns is yielded last. Providers write their streaming once as such a function.
func StreamOf(run func(yield func(Event, error) bool) error) Stream {
	return func(yield func(Event, error) bool) {
		if err := run(yield); err != nil {
			yield(Event{}, err)
		}
	}
}

// Provider is a model backend (Ollama, OpenAI-compatible, Anthropic).
type Provider interface {
	Name() string
	Stream(ctx context.Context, req Request) Stream
	Models(ctx context.Context) ([]ModelInfo, error)
}
