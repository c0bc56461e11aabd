package delegate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/testtools"
	"github.com/tofu-research/tofu/backend/tools"
)

// TestClaudeCodeDelegate drives the real Claude Code (npm, build/tools) pointed at the scripted
// model's Anthropic API: it writes a file in the workspace on the model's word, the result
// carries its answer, its steps and its session, and a follow-up resumes that session.
func TestClaudeCodeDelegate(t *testing.T) {
	t.Parallel()
	claude := filepath.Join(testtools.Dir(t), ".bin", "claude")
	srv := llmtest.New(t, llmtest.DemoModel())
	ws, home := t.TempDir(), t.TempDir()
	target := filepath.Join(ws, "hello.txt")
	srv.DefaultFunc(func(r llm.Request) llmtest.Reply {
		results := 0
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				results++
			}
		}
		switch last := llmtest.LastUser(r); {
		case strings.Contains(last, "what did you write"):
			return llmtest.Reply{Text: "I wrote hello.txt earlier in this session."}
		case strings.Contains(last, "write hello") && results == 0:
			args, _ := json.Marshal(map[string]string{"file_path": target, "content": "hello from claude\n"})
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "Write", Arguments: args}}}
		case results > 0:
			return llmtest.Reply{Text: "Wrote hello.txt."}
		}
		return llmtest.Reply{Text: "ok"}
	})
	d := New(Options{
		LookPath: func(string) (string, error) { return claude, nil },
		Env: []string{"HOME=" + home, "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test", "ANTHROPIC_MODEL=" + llmtest.DemoModelName,
			"ANTHROPIC_SMALL_FAST_MODEL=" + llmtest.DemoModelName, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1"},
	})
	if d == nil {
		t.Fatal("no agent found")
	}
	reg := tools.NewRegistry(d)
	var reports []tools.Progress
	run := func(args string) tools.Result {
		t.Helper()
		call := tools.Call{ID: "c1", Name: Name, Arguments: json.RawMessage(args), Workspace: ws,
			Progress: func(p tools.Progress) { reports = append(reports, p) }}
		acc, aerr := reg.Access(call)
		if aerr != nil || len(acc) != 1 || acc[0].Kind != tools.AccessExec {
			t.Fatalf("access: %+v %v", acc, aerr)
		}
		res, err := reg.Run(context.Background(), call)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(`{"agent":"claude","task":"write hello.txt saying hello"}`)
	meta := res.Meta.(*Meta)
	if res.IsError || !strings.Contains(res.Text, "Wrote hello.txt.") || meta.Session == "" || len(meta.Steps) != 1 || !strings.HasPrefix(meta.Steps[0], "Write ") {
		t.Fatalf("first run: %+v\n%s\nstderr: %s", meta, res.Text, meta.Stderr)
	}
	// Its steps were reported live, for the running card.
	if len(reports) != 1 || reports[0].Done != 1 || !strings.HasPrefix(reports[0].Message, "Write ") {
		t.Fatalf("progress: %+v", reports)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello from claude\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	res = run(`{"agent":"claude","task":"what did you write?","session":"` + meta.Session + `"}`)
	if res.IsError || !strings.Contains(res.Text, "earlier in this session") || res.Meta.(*Meta).Session != meta.Session {
		t.Fatalf("follow-up: %+v\n%s", res.Meta, res.Text)
	}
	// The follow-up request carried the first run's conversation.
	last := srv.Chats()[len(srv.Chats())-1].Request
	var sawWrite bool
	for _, m := range last.Messages {
		sawWrite = sawWrite || strings.Contains(m.Content, "Wrote hello.txt.")
	}
	if !sawWrite {
		t.Fatalf("the resumed session lost its history: %+v", last.Messages)
	}
	if res := run(`{"agent":"aider","task":"x"}`); !res.IsError || !strings.Contains(res.Text, "installed: claude") {
		t.Fatalf("an agent not installed: %+v", res)
	}
}
