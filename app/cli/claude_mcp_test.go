package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// TestClaudeCodeCallsTofuOverMCP: the real Claude Code, configured with `tofu mcp serve` as an
// MCP server and pointed at the scripted model's Anthropic API, calls Tofu's sessions_search in
// `claude -p` and answers with what it found.
func TestClaudeCodeCallsTofuOverMCP(t *testing.T) {
	t.Parallel()
	claude := filepath.Join(testtools.Dir(t), ".bin", "claude")
	data, home, ws := t.TempDir(), t.TempDir(), t.TempDir()
	st, err := store.Open(filepath.Join(data, "tofu"))
	if err != nil {
		t.Fatal(err)
	}
	old, _ := st.CreateSession("Soy milk notes")
	st.Append(old.ID, store.EventUser, store.UserMessage{Text: "how long to press tofu?"})
	st.Close()

	srv := scripted.New(t, scripted.DemoModel())
	// Claude Code defers MCP tools behind its ToolSearch: the model selects Tofu's tool, calls
	// it, then answers with its result.
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		var results []string
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				results = append(results, m.Content)
			}
		}
		switch {
		case len(results) == 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("toolu_1", "ToolSearch", map[string]any{"query": "select:mcp__tofu__sessions_search", "max_results": 1})}}
		case len(results) == 1:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("toolu_2", "mcp__tofu__sessions_search", map[string]string{"query": "press tofu"})}}
		}
		return scripted.Reply{Text: "Tofu says: " + results[len(results)-1]}
	})
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"tofu": map[string]any{
		"command": os.Args[0], "args": []string{"-test.run=TestCLIHelper"},
		"env": map[string]string{"TOFU_CLI_HELPER": "1", "TOFU_CLI_ARGS": "mcp\x1fserve", "XDG_DATA_HOME": data,
			"XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "TOFU_KEYRING": "off"},
	}}})
	cmd := exec.Command(claude, "-p", "find my notes about pressing tofu", "--output-format", "json",
		"--mcp-config", string(cfg), "--strict-mcp-config", "--allowedTools", "mcp__tofu__sessions_search")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "ANTHROPIC_BASE_URL="+srv.URL,
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_MODEL="+scripted.DemoModelName, "ANTHROPIC_SMALL_FAST_MODEL="+scripted.DemoModelName,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude: %v\n%s\n%s", err, out.String(), errOut.String())
	}
	var res struct {
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.IsError || !strings.Contains(res.Result, "Tofu says:") || !strings.Contains(res.Result, old.ID) {
		t.Fatalf("claude's answer: %v %+v\n%s", err, res, errOut.String())
	}
}
