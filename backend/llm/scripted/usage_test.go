package scripted

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// TestUsageCountsToolsAndArguments: the usage the server reports counts a request as the
// tokenizer does, tool specs and earlier calls' arguments included, and a reply's tool calls
// with their arguments (a relay run's summary under-reported every tool-heavy step).
func TestUsageCountsToolsAndArguments(t *testing.T) {
	t.Parallel()
	args := json.RawMessage(`{"edits":[{"path":"caste.go","old_string":"` + strings.Repeat("v, err := strconv.ParseInt(s, 0, 0) ", 20) + `","new_string":"x"}]}`)
	spec := llm.ToolSpec{Name: "edit_files", Description: "Replace exact text in files; many edits across files per call.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"edits":{"type":"array"}}}`)}
	bare := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "fix the bug"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "edit_files", Arguments: args}}},
		{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "edit_files", Content: "caste.go: edited (1 edit, +1 -1)"},
	}}
	withTools := bare
	withTools.Tools = []llm.ToolSpec{spec}

	for _, format := range []string{"ollama", "openai", "anthropic"} {
		a := resolve(Reply{Text: "done"}, bare, format, 1)
		if want := tokens.CountRequest(bare); a.promptToks != want {
			t.Errorf("%s: prompt tokens %d, want %d", format, a.promptToks, want)
		}
		if a.promptToks <= tokens.Count(string(args)) {
			t.Errorf("%s: prompt tokens %d leave out the call's arguments (%d alone)", format, a.promptToks, tokens.Count(string(args)))
		}
		b := resolve(Reply{Text: "done"}, withTools, format, 1)
		if b.promptToks-a.promptToks != tokens.ToolsHeader+tokens.Tool(spec) {
			t.Errorf("%s: the tool spec adds %d tokens, want %d", format, b.promptToks-a.promptToks, tokens.ToolsHeader+tokens.Tool(spec))
		}
		c := resolve(Reply{Text: "Editing.", ToolCalls: []llm.ToolCall{{Name: "edit_files", Arguments: args}}}, withTools, format, 1)
		want := tokens.Count("Editing.") + tokens.PerToolCall + tokens.Count("edit_files") + tokens.Count(string(args))
		if c.outputToks != want {
			t.Errorf("%s: output tokens %d, want %d (text, call name and arguments)", format, c.outputToks, want)
		}
	}
	// A scripted count still wins.
	if a := resolve(Reply{Text: "x", PromptTokens: 7, OutputTokens: 3}, withTools, "openai", 1); a.promptToks != 7 || a.outputToks != 3 {
		t.Errorf("scripted usage: %d/%d", a.promptToks, a.outputToks)
	}
}
