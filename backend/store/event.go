package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// EventType names what happened. The payload schema of each type is in docs/EVENTS.md; new
// features add types (tool calls, compaction, approvals) instead of changing existing ones.
type EventType string

const (
	EventUser        EventType = "user"        // UserMessage
	EventAssistant   EventType = "assistant"   // AssistantMessage
	EventUsage       EventType = "usage"       // llm.Usage
	EventError       EventType = "error"       // ErrorInfo
	EventInterrupted EventType = "interrupted" // Interruption
)

// Event is one entry of a session's append-only log.
type Event struct {
	Session string          `json:"session"`
	Seq     uint64          `json:"seq"` // 1, 2, 3 … without gaps within a session
	Time    time.Time       `json:"time"`
	Type    EventType       `json:"type"`
	Data    json.RawMessage `json:"data"`
}

// Decode unmarshals the event's payload into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("decode %s event %d of session %s: %w", e.Type, e.Seq, e.Session, err)
	}
	return nil
}

// UserMessage is what the user typed.
type UserMessage struct {
	Text string `json:"text"`
}

// AssistantMessage is a model's complete (or interrupted) reply.
type AssistantMessage struct {
	Text        string         `json:"text"`
	Reasoning   string         `json:"reasoning,omitempty"`
	ToolCalls   []llm.ToolCall `json:"tool_calls,omitempty"`
	Model       string         `json:"model,omitempty"`
	Provider    string         `json:"provider,omitempty"`
	StopReason  string         `json:"stop_reason,omitempty"`
	Interrupted bool           `json:"interrupted,omitempty"` // the text is what arrived before a stop
}

// ErrorInfo is a failure the user should see; Kind and Hint come from llm.Error when the model
// side failed.
type ErrorInfo struct {
	Kind      string `json:"kind"`
	Message   string `json:"message"`
	Hint      string `json:"hint,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	Retryable bool   `json:"retryable"`
}

// Interruption records that a turn stopped before the model ended it.
type Interruption struct {
	Reason string `json:"reason"` // "user" (stop button), "shutdown"
}
