package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
)

// ReplySyntax is how an answer is written; the files and the terminal show it.
const ReplySyntax = `Reply with plain text (the model's answer), or with tool calls only: one JSON object
{"tool": "NAME", "arguments": {...}} per call, several one after another or in a JSON array.
Anything that is not entirely such objects is sent as text.`

// call is one tool call as a person writes it.
type call struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// ParseReply turns an answer into the model's reply: tool calls when the text is nothing but
// call objects (see ReplySyntax), else the text itself.
func ParseReply(text string) llmtest.Reply {
	text = strings.TrimSpace(text)
	if calls, err := parseCalls(text); err == nil && len(calls) > 0 {
		return llmtest.Reply{ToolCalls: calls}
	}
	return llmtest.Reply{Text: text}
}

func parseCalls(text string) ([]llm.ToolCall, error) {
	if !strings.HasPrefix(text, "{") && !strings.HasPrefix(text, "[") {
		return nil, errors.New("not JSON")
	}
	dec := json.NewDecoder(strings.NewReader(text))
	var out []llm.ToolCall
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		var group []call
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			if err := json.Unmarshal(raw, &group); err != nil {
				return nil, err
			}
		} else {
			var c call
			if err := json.Unmarshal(raw, &c); err != nil {
				return nil, err
			}
			group = []call{c}
		}
		for _, c := range group {
			if c.Tool == "" {
				return nil, fmt.Errorf("a call without \"tool\": %s", raw)
			}
			args := c.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage(`{}`)
			}
			out = append(out, llm.ToolCall{Name: c.Tool, Arguments: args})
		}
	}
}
