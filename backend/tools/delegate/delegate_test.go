package delegate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/testtools"
)

// TestClaudeCodeDelegate drives the real Claude Code (npm, build/tools) pointed at the scripted
// model's Anthropic API: it writes a file in the workspace on the model's word, the result
// carries its answer, its steps and its session, and a follow-up resumes that session.
func TestClaudeCodeDelegate(t *testing.T) {
	t.Parallel()
	claude := filepath.Join(testtools.Dir(t), ".bin", "claude")
	srv := scripted.New(t, scripted.DemoModel())
	ws, home := t.TempDir(), t.TempDir()
	target := filepath.Join(ws, "hello.txt")
	scriptAgent(srv, "Wrote hello.txt.", scriptedCall{"write hello",
		llm.ToolCall{ID: "toolu_1", Name: "Write", Arguments: jsonArgs(map[string]string{"file_path": target, "content": "hello from claude\n"})}})
	a := newAgentRun(t, ws, "claude", claude, []string{"HOME=" + home, "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test", "ANTHROPIC_MODEL=" + scripted.DemoModelName,
		"ANTHROPIC_SMALL_FAST_MODEL=" + scripted.DemoModelName, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1"})
	res := a.run(`{"agent":"claude","task":"write hello.txt saying hello"}`)
	meta := res.Meta.(*Meta)
	if res.IsError || !strings.Contains(res.Text, "Wrote hello.txt.") || meta.Session == "" {
		t.Fatalf("first run: %+v\n%s\nstderr: %s", meta, res.Text, meta.Stderr)
	}
	a.checkStep(meta, "Write")
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello from claude\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	a.checkFollowUp(srv, "claude", meta.Session, "Wrote hello.txt.")
	if res := a.run(`{"agent":"aider","task":"x"}`); !res.IsError || !strings.Contains(res.Text, "installed: claude") {
		t.Fatalf("an agent not installed: %+v", res)
	}
}
