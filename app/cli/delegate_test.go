package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// TestRunDelegatesToClaudeCode: `tofu run` whose model hands the task to Claude Code (the real
// CLI from build/tools, on the same scripted model's Anthropic API): under --approve all the
// file is written by Claude Code and its answer comes back to Tofu's model; under --approve safe
// the delegation is refused (it runs a program).
func TestRunDelegatesToClaudeCode(t *testing.T) {
	st, srv := runEnv(t)
	home := t.TempDir()
	t.Setenv("PATH", filepath.Join(testtools.Dir(t), ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "test", "ANTHROPIC_MODEL": scripted.DemoModelName,
		"ANTHROPIC_SMALL_FAST_MODEL": scripted.DemoModelName, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_AUTOUPDATER": "1", "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude")} {
		t.Setenv(k, v)
	}
	for _, mode := range []string{"safe", "all"} {
		t.Run(mode, func(t *testing.T) {
			ws := t.TempDir()
			target := filepath.Join(ws, "greeting.txt")
			srv.DefaultFunc(func(r llm.Request) scripted.Reply {
				if strings.Contains(scripted.LastUser(r), "CLAUDE TASK") { // Claude Code's own conversation
					if toolStep(r) == 0 {
						return scripted.Reply{ToolCalls: []llm.ToolCall{tc("toolu_1", "Write", map[string]string{"file_path": target, "content": "hi\n"})}}
					}
					return scripted.Reply{Text: "Claude wrote greeting.txt."}
				}
				switch toolStep(r) { // Tofu's
				case 0:
					return scripted.Reply{ToolCalls: []llm.ToolCall{tc("d1", "delegate", map[string]string{"agent": "claude", "task": "CLAUDE TASK: write greeting.txt"})}}
				}
				return scripted.Reply{Text: "Delegated."}
			})
			var out, errOut bytes.Buffer
			end, err := Run(context.Background(), st, RunOptions{Task: "greet " + mode, Workspace: ws, Approve: mode}, &out, &errOut)
			if err != nil || end.Reason != "done" {
				t.Fatalf("end %+v, %v\n%s", end, err, errOut.String())
			}
			_, ferr := os.Stat(target)
			var res store.ToolResult
			list, _ := st.Sessions()
			for _, s := range list {
				if s.Workspace != ws {
					continue
				}
				evs, _ := st.Events(s.ID)
				for _, ev := range evs {
					var r store.ToolResult
					if ev.Type == store.EventToolResult && ev.Decode(&r) == nil && r.Name == "delegate" {
						res = r
					}
				}
			}
			meta, _ := json.Marshal(res.Meta)
			switch mode {
			case "safe":
				if ferr == nil || !strings.Contains(res.Text, "safe denies") {
					t.Fatalf("--approve safe let the delegation run: %+v", res)
				}
			case "all":
				if ferr != nil || !strings.Contains(res.Text, "Claude wrote greeting.txt.") || !strings.Contains(string(meta), `"session"`) {
					t.Fatalf("delegation: %v %+v %s\n%s", ferr, res, meta, errOut.String())
				}
			}
		})
	}
}
