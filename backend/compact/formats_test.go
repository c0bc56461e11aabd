package compact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// The policy's reasons must hold for a bash-only agent (mini-swe-agent: edits in code blocks,
// views with sed -n) and a function-calling one (SWE-agent: str_replace_editor) alike: held-out
// replay missed more calls once SWE-agent runs were included.

// TestArgsCutLikeCodeBlocks: a cold code block is cut when it alone is long; a call's string
// argument was cut whenever the whole call was (an old_str and a new_str of 800 characters
// each lost their lines, while the same edit as a heredoc kept them).
func TestArgsCutLikeCodeBlocks(t *testing.T) {
	t.Parallel()
	c := Defaults().L1
	code := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString("    value_" + strings.Repeat("x", 20) + " = compute(" + string(rune('a'+i%26)) + ")\n")
		}
		return b.String()
	}
	for _, size := range []int{800, 2 * c.ArgsMinChars} {
		body := code(size)
		bash := llm.Message{Role: llm.RoleAssistant, Content: "Edit it.\n```bash\ncat <<'EOF' > a.py\n" + body + "EOF\n```"}
		args, _ := json.Marshal(map[string]string{"command": "str_replace", "path": "/testbed/a.py", "old_str": body, "new_str": body})
		call := llm.Message{Role: llm.RoleAssistant, Content: "Edit it.", ToolCalls: []llm.ToolCall{{ID: "1", Name: "str_replace_editor", Arguments: args}}}
		_, bashCut := compactAssistant(bash, c, false)
		got, callCut := compactAssistant(call, c, false)
		if bashCut != callCut || bashCut != (size > c.ArgsMinChars) {
			t.Errorf("%d characters: code block cut %v, arguments cut %v (%s)", size, bashCut, callCut, got.ToolCalls[0].Arguments)
		}
	}
}

// TestEditSnippetIsAFileView: str_replace_editor's edit shows the file around the change, as
// the `sed -n` a bash-only agent runs after its edit: both are file reads (kept hot like one).
func TestEditSnippetIsAFileView(t *testing.T) {
	t.Parallel()
	edit := func(cmd, out string) []llm.Message {
		args, _ := json.Marshal(map[string]string{"command": cmd, "path": "/testbed/a.py", "old_str": "x", "new_str": "y"})
		return []llm.Message{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "str_replace_editor", Arguments: args}}},
			{Role: llm.RoleTool, ToolCallID: "1", ToolName: "str_replace_editor", Content: out},
		}
	}
	bash := []llm.Message{{Role: llm.RoleAssistant, Content: "```bash\nsed -n '1,20p' a.py\n```"}, {Role: llm.RoleUser, Content: "<returncode>0</returncode>\n<output>\ny = 1\n</output>"}}
	for name, c := range map[string]struct {
		conv []llm.Message
		want Kind
	}{
		"str_replace with its snippet": {edit("str_replace", "The file /testbed/a.py has been edited. Here's the result of running `cat -n` on a snippet of /testbed/a.py:\n     1\ty = 1\nReview the changes and make sure they are as expected."), KindFile},
		"insert with its snippet":      {edit("insert", "The file /testbed/a.py has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n     2\tz = 2\n"), KindFile},
		"a failed edit":                {edit("str_replace", "No replacement was performed, old_str `x` did not appear verbatim in /testbed/a.py."), KindDefault},
		"a bash view after an edit":    {bash, KindFile},
	} {
		if got := KindAt(c.conv, 1); got != c.want {
			t.Errorf("%s: kind %v, want %v", name, got, c.want)
		}
	}
}
