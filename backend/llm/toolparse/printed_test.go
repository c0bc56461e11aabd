package toolparse

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// FindPrinted recognises every format the parsers know, complete or broken, and leaves prose
// and JSON answers alone.
func TestFindPrinted(t *testing.T) {
	t.Parallel()
	tools := []llm.ToolSpec{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	for _, tc := range []struct {
		name, text, format, reason string // format "" = not a printed call
	}{
		{"tagged, broken JSON", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}\n</tool_call>", "tool_call", "JSON is not valid"},
		{"tagged, never closed", "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"argu", "tool_call", "no closing </tool_call>"},
		{"tagged, unknown tool", `<tool_call>{"name": "write_file", "arguments": {}}</tool_call>`, "tool_call", `no tool named "write_file"`},
		{"tagged, well formed", `<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>`, "tool_call", "instead of being sent as a tool call"},
		{"function XML, unclosed", "<function=read_file>\n<parameter=path>\na\n", "function", "malformed"},
		{"function XML, unknown tool", "<function=rm>\n</function>", "function", `no tool named "rm"`},
		{"fenced JSON, broken", "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": }\n```", "fenced_json", "JSON is not valid"},
		{"bare JSON, broken", `{"name": "read_file", "arguments": "{\"path\": "a"}`, "bare_json", "JSON is not valid"},
		{"bare JSON list", `[{"tool": "read_file", "args": 3}]`, "bare_json", "not a JSON object"},
		{"python_tag, broken JSON", "<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": ", "python_tag", "JSON is not valid"},
		{"TOOL_CALLS, unknown tool", `[TOOL_CALLS][{"name": "rm", "arguments": {}}]`, "mistral_tool_calls", `no tool named "rm"`},
		{"TOOL_CALLS v11, malformed", `[TOOL_CALLS]read_file{"path": "a"}`, "mistral_tool_calls", "malformed"},
		{"prose", "The answer is 42. Use {name} as a placeholder.", "", ""},
		{"a JSON answer", `{"answer": 42}`, "", ""},
		{"a JSON answer starting with name", `{"name": "Ada Lovelace", "born": 1815}`, "", ""},
		{"bare JSON naming an offered tool, broken", `{"name": "read_file", "path": `, "bare_json", "JSON is not valid"},
		{"bare JSON call to a tool not offered", `{"name": "rm_rf", "arguments": {}}`, "bare_json", `no tool named "rm_rf"`},
		{"prose about calls", "Models print tool_call tags sometimes.", "", ""},
		{"markers shown in inline code", "Qwen writes its calls as `<tool_call>{...}</tool_call>` and Qwen3-Coder as `<function=name>`.", "", ""},
		{"markers shown in a code block", "The format is:\n```\n<tool_call>\n{\"name\": \"read_file\", \"arg\n```\nthat is all.", "", ""},
		{"a call wrapped in a fence", "```xml\n<tool_call>\n{\"name\": \"read_file\", \"arg\n```", "tool_call", "JSON is not valid"},
		{"a call after a code block", "See:\n```go\nx := 1\n```\n<tool_call>{\"name\": \"read_file\"", "tool_call", "no closing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := FindPrinted(tc.text, tools)
			if ok != (tc.format != "") || p.Format != tc.format || !strings.Contains(p.Reason, tc.reason) {
				t.Errorf("FindPrinted = %+v, %v; want format %q with %q", p, ok, tc.format, tc.reason)
			}
		})
	}
}
