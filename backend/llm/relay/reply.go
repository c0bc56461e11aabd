package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// ReplySyntax is how an answer is written; the files and the terminal show it.
const ReplySyntax = `Reply with plain text (the model's answer), or with tool calls only: one JSON object
{"tool": "NAME", "arguments": {...}} per call, several one after another or in a JSON array.
Anything that does not start with { or [ is sent as text; an answer that does but is not valid
call objects (a raw tab or newline inside a JSON string, a missing "tool") is refused with the
parse error and asked for again, so a typo never reaches the harness as a final answer.`

// call is one tool call as a person writes it.
type call struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// ParseReply turns an answer into the model's reply: tool calls when the text is nothing but
// call objects (see ReplySyntax), else the text itself. An answer that starts like JSON but
// is not valid call objects is an error: it was meant as a call, and sent as text it would end
// the turn as a final answer.
func ParseReply(text string) (scripted.Reply, error) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "{") && !strings.HasPrefix(text, "[") {
		return scripted.Reply{Text: text}, nil
	}
	calls, err := parseCalls(text)
	if err != nil {
		return scripted.Reply{}, fmt.Errorf("the answer starts like a tool call but is not one (%w); "+
			"escape tabs and newlines inside JSON strings (\\t, \\n)", err)
	}
	if len(calls) == 0 {
		return scripted.Reply{}, errors.New("the answer is an empty list of tool calls")
	}
	return scripted.Reply{ToolCalls: calls}, nil
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
