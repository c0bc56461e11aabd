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

// openCodeEnv points OpenCode (npm opencode-ai, build/tools) at the scripted model through a
// temporary config with an OpenAI-compatible provider, in a home of its own, so nothing it
// does reaches its hosted providers or the user's settings.
func openCodeEnv(t testing.TB, srv *llmtest.Server) []string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "opencode.json")
	body, _ := json.Marshal(map[string]any{
		"provider": map[string]any{"tofu": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Tofu scripted model",
			"options": map[string]any{"baseURL": srv.URL + "/v1", "apiKey": "test"},
			"models":  map[string]any{llmtest.DemoModelName: map[string]any{}},
		}},
		"model": "tofu/" + llmtest.DemoModelName, "small_model": "tofu/" + llmtest.DemoModelName,
		"autoupdate": false, "share": "disabled",
	})
	if err := os.WriteFile(cfg, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"OPENCODE_CONFIG=" + cfg, "OPENCODE_DISABLE_MODELS_FETCH=1"}
}

// TestOpenCodeDelegate drives the real OpenCode on the scripted model's OpenAI-compatible API:
// it writes a file on the model's word (its write tool), the result carries its answer, its
// step and its session, its steps are reported as progress, and a follow-up with that session
// carries the first run's conversation. Commands are refused, as Claude Code's are.
func TestOpenCodeDelegate(t *testing.T) {
	t.Parallel()
	oc := filepath.Join(testtools.Dir(t), ".bin", "opencode")
	srv := llmtest.New(t, llmtest.DemoModel())
	ws := t.TempDir()
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
			args, _ := json.Marshal(map[string]string{"filePath": target, "content": "hello from opencode\n"})
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "write", Arguments: args}}}
		case strings.Contains(last, "run ls") && results == 0:
			args, _ := json.Marshal(map[string]string{"command": "ls", "description": "list"})
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "bash", Arguments: args}}}
		case results > 0:
			return llmtest.Reply{Text: "Done."}
		}
		return llmtest.Reply{Text: "ok"}
	})
	d := New(Options{LookPath: func(name string) (string, error) {
		if name != "opencode" {
			return "", os.ErrNotExist
		}
		return oc, nil
	}, Env: openCodeEnv(t, srv)})
	if d == nil {
		t.Fatal("no agent found")
	}
	reg := tools.NewRegistry(d)
	var reports []tools.Progress
	run := func(args string) tools.Result {
		t.Helper()
		call := tools.Call{ID: "c1", Name: Name, Arguments: json.RawMessage(args), Workspace: ws,
			Progress: func(p tools.Progress) { reports = append(reports, p) }}
		res, err := reg.Run(context.Background(), call)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(`{"agent":"opencode","task":"write hello.txt saying hello"}`)
	meta := res.Meta.(*Meta)
	if res.IsError || !strings.Contains(res.Text, "Done.") || !strings.HasPrefix(meta.Session, "ses_") || len(meta.Steps) != 1 || !strings.HasPrefix(meta.Steps[0], "write ") {
		t.Fatalf("first run: %+v\n%s\nstderr: %s", meta, res.Text, meta.Stderr)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello from opencode\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	if len(reports) != 1 || !strings.HasPrefix(reports[0].Message, "write ") {
		t.Fatalf("progress: %+v", reports)
	}
	res = run(`{"agent":"opencode","task":"what did you write?","session":"` + meta.Session + `"}`)
	if res.IsError || !strings.Contains(res.Text, "earlier in this session") || res.Meta.(*Meta).Session != meta.Session {
		t.Fatalf("follow-up: %+v\n%s", res.Meta, res.Text)
	}
	last := srv.Chats()[len(srv.Chats())-1].Request
	var sawWrite bool
	for _, m := range last.Messages {
		sawWrite = sawWrite || strings.Contains(m.Content, "Done.")
	}
	if !sawWrite {
		t.Fatalf("the resumed session lost its history: %+v", last.Messages)
	}
	// Commands are refused: the model's bash call comes back as an error to it.
	res = run(`{"agent":"opencode","task":"run ls"}`)
	var sawRefusal bool
	for _, c := range srv.Chats() {
		for _, m := range c.Request.Messages {
			sawRefusal = sawRefusal || (m.Role == llm.RoleTool && m.ToolCallID == "call_2" && !strings.Contains(m.Content, "hello.txt"))
		}
	}
	if !sawRefusal {
		t.Fatalf("the command ran: %s", res.Text)
	}
}
