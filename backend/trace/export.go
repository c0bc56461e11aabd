package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// Export formats.
const (
	FormatTofu         = "tofu"            // the whole log and every request as sent
	FormatOpenAI       = "openai-messages" // the conversation as OpenAI chat messages
	FormatMiniSWEAgent = "mini-swe-agent"  // a mini-swe-agent trajectory (tofu eval replay reads it)
)

// Formats lists the export formats, the default first.
var Formats = []string{FormatTofu, FormatOpenAI, FormatMiniSWEAgent}

// Export writes a session's trace to w in format.
func Export(w io.Writer, log Log, session, format string) error {
	calls, events, err := Calls(log, session)
	if err != nil {
		return err
	}
	var doc any
	switch format {
	case FormatTofu, "":
		atts, err := attachments(log, events)
		if err != nil {
			return err
		}
		doc = tofuDoc(session, events, calls, atts)
	case FormatOpenAI:
		doc = map[string]any{"messages": openAIMessages(events, calls)}
	case FormatMiniSWEAgent:
		doc = miniSWEDoc(events, calls)
	default:
		return fmt.Errorf("unknown trace format %q (one of %s)", format, strings.Join(Formats, ", "))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

type exportedRequest struct {
	Call   int             `json:"call"`
	Seq    uint64          `json:"seq"`
	SHA256 string          `json:"sha256,omitempty"`
	Format string          `json:"format,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"` // the bytes sent, verbatim
	// Rebuilt says the body was built again from the log (requests are not kept whole);
	// `tofu trace verify` checks that it hashes to sha256.
	Rebuilt bool `json:"rebuilt,omitempty"`
}

func tofuDoc(session string, events []store.Event, calls []Call, atts []exportedAttachment) any {
	reqs := make([]exportedRequest, 0, len(calls))
	for _, c := range calls {
		r := exportedRequest{Call: c.N, Seq: c.Seq}
		if p := c.Report.Request; p != nil {
			r.SHA256, r.Format = p.SHA256, p.Format
		}
		if json.Valid(c.Body) {
			r.Body, r.Rebuilt = c.Body, c.Rebuilt
		}
		reqs = append(reqs, r)
	}
	return map[string]any{"format": "tofu-trace-1", "session": session, "events": events, "requests": reqs, "attachments": atts}
}

// openAIMessages is the conversation on the active path, after the system prompt of the last
// request, as OpenAI chat messages (tool calls and tool results in their own fields).
func openAIMessages(events []store.Event, calls []Call) []map[string]any {
	var out []map[string]any
	if sys := lastSystem(calls); sys != "" {
		out = append(out, map[string]any{"role": "system", "content": sys})
	}
	for _, m := range conversation(events) {
		o := map[string]any{"role": string(m.Role), "content": m.Content}
		if len(m.ToolCalls) > 0 {
			var tcs []map[string]any
			for _, tc := range m.ToolCalls {
				tcs = append(tcs, map[string]any{"id": tc.ID, "type": "function",
					"function": map[string]any{"name": tc.Name, "arguments": string(tc.Arguments)}})
			}
			o["tool_calls"] = tcs
		}
		if m.Role == llm.RoleTool {
			o["tool_call_id"] = m.ToolCallID
		}
		out = append(out, o)
	}
	return out
}

func lastSystem(calls []Call) string {
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].IsSummary() {
			continue // the summariser's prompt, not the conversation's
		}
		if w, err := decodeWire(calls[i].Body); err == nil {
			if s := w.systemText(); s != "" {
				return s
			}
		}
	}
	return ""
}

// miniSWEDoc writes the conversation as mini-swe-agent does: plain role/content messages,
// system then user then assistant and user in turn (tool results are user observations, tool
// calls are written into the assistant's text), and its info block.
func miniSWEDoc(events []store.Event, calls []Call) any {
	var msgs []map[string]any
	add := func(role, content string) {
		if n := len(msgs); n > 0 && msgs[n-1]["role"] == role {
			msgs[n-1]["content"] = msgs[n-1]["content"].(string) + "\n\n" + content
			return
		}
		msgs = append(msgs, map[string]any{"role": role, "content": content})
	}
	if sys := lastSystem(calls); sys != "" {
		add("system", sys)
	}
	for _, m := range conversation(events) {
		switch m.Role {
		case llm.RoleAssistant:
			text := m.Content
			for _, tc := range m.ToolCalls {
				text += fmt.Sprintf("\n\n```%s\n%s\n```", tc.Name, string(tc.Arguments))
			}
			add("assistant", strings.TrimSpace(text))
		case llm.RoleTool:
			add("user", fmt.Sprintf("<output tool=%q>\n%s\n</output>", m.ToolName, m.Content))
		case llm.RoleUser:
			add("user", m.Content)
		}
	}
	var cost float64
	for _, e := range events {
		var u llm.Usage
		if e.Type == store.EventUsage && e.Decode(&u) == nil {
			cost += u.CostUSD
		}
	}
	return map[string]any{
		"trajectory_format": "mini-swe-agent-1",
		"info": map[string]any{"exit_status": exitStatus(events),
			"model_stats": map[string]any{"instance_cost": cost, "api_calls": len(calls)}},
		"messages": msgs,
	}
}

func exitStatus(events []store.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		var end store.TurnEnd
		if events[i].Type == store.EventTurnEnd && events[i].Decode(&end) == nil {
			return string(end.Reason)
		}
	}
	return ""
}

// conversation is the active path projected as the model reads it, with the last reply kept:
// the projection stops at the last user message or tool result (what a next request would
// send), so a closing user message is added for it and taken off again.
func conversation(events []store.Event) []llm.Message {
	path := append(slices.Clone(store.ActivePath(events)), store.Event{Type: store.EventUser, Data: json.RawMessage(`{"text":""}`)})
	msgs := agent.Messages(path)
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleUser && msgs[n-1].Content == "" {
		msgs = msgs[:n-1]
	}
	return msgs
}
