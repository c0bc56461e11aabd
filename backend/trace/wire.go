// Package trace checks and exports a session's white-box trace: every model call's request
// as sent (its bytes kept beside the log and fingerprinted in the model_call event), and the
// conversation the log says it carried.
package trace

import (
	"encoding/json"
	"fmt"
	"strings"
)

// wireRequest is what every supported wire format shares: a list of messages with a role and
// content that is a string (Ollama, OpenAI) or a list of blocks (Anthropic, OpenAI parts).
type wireRequest struct {
	Model    string            `json:"model"`
	System   json.RawMessage   `json:"system,omitempty"` // Anthropic
	Messages []wireMessage     `json:"messages"`
	Tools    []json.RawMessage `json:"tools,omitempty"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is the message's text: a string content, or its blocks' texts (a tool_result's nested
// content too) joined by newlines.
func (m wireMessage) text() string { return contentText(m.Content) }

func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
		if t := contentText(b.Content); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

func decodeWire(body []byte) (wireRequest, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return w, fmt.Errorf("decode request: %w", err)
	}
	return w, nil
}

// systemText is the system prompt of a request: Anthropic's system field, or the first
// message when its role is system.
func (w wireRequest) systemText() string {
	if s := contentText(w.System); s != "" {
		return s
	}
	if len(w.Messages) > 0 && w.Messages[0].Role == "system" {
		return w.Messages[0].text()
	}
	return ""
}
