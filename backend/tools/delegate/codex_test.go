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

const codexModel = "gpt-5.5"

// codexEnvFor points Codex (npm @openai/codex, build/tools) at the scripted model's Responses
// API through a config.toml in a CODEX_HOME of its own, so nothing it does reaches OpenAI or
// the user's settings.
func codexEnvFor(t testing.TB, srv *llmtest.Server) []string {
	t.Helper()
	home := t.TempDir()
	cfg := `model = "` + codexModel + `"
model_provider = "tofu"
check_for_update_on_startup = false

[model_providers.tofu]
name = "Tofu scripted model"
base_url = "` + srv.URL + `/v1"
wire_api = "responses"
env_key = "TOFU_TEST_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// Codex puts the helpers its sandbox runs (codex-linux-sandbox) beside its home, but not
	// under the temporary directory; its own TMPDIR inside the home lets it.
	tmp := filepath.Join(home, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"CODEX_HOME=" + home, "HOME=" + home, "TMPDIR=" + tmp, "TOFU_TEST_KEY=test"}
}

// TestCodexDelegate drives the real Codex on the scripted model's Responses API: it writes a
// file on the model's word (its apply_patch tool), the result carries its answer, its step and
// its session, its steps are reported as progress, and a follow-up resuming that session
// carries the first run's conversation. It is offered no command to run, and its sandbox
// refuses a write outside the workspace.
func TestCodexDelegate(t *testing.T) {
	t.Parallel()
	cx := testtools.Node(t, ".bin", "codex") // fails, saying to run setup, when it is not installed
	// A model Codex's bundled catalog knows, so that it offers its apply_patch tool (an unknown
	// model is offered none, and with commands off it could not write).
	model := llmtest.DemoModel()
	model.Name = codexModel
	srv := llmtest.New(t, model)
	ws := t.TempDir()
	target := filepath.Join(ws, "hello.txt")
	outside := filepath.Join(t.TempDir(), "escaped.txt")
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
			patch := "*** Begin Patch\n*** Add File: hello.txt\n+hello from codex\n*** End Patch\n"
			args, _ := json.Marshal(patch)
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "apply_patch", Arguments: args}}}
		case strings.Contains(last, "write outside") && results == 0:
			patch := "*** Begin Patch\n*** Add File: " + outside + "\n+escaped\n*** End Patch\n"
			args, _ := json.Marshal(patch)
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "apply_patch", Arguments: args}}}
		case results > 0:
			return llmtest.Reply{Text: "Done."}
		}
		return llmtest.Reply{Text: "ok"}
	})
	d := New(Options{LookPath: func(name string) (string, error) {
		if name != "codex" {
			return "", os.ErrNotExist
		}
		return cx, nil
	}, Env: codexEnvFor(t, srv)})
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
	res := run(`{"agent":"codex","task":"write hello.txt saying hello"}`)
	meta := res.Meta.(*Meta)
	if res.IsError || !strings.Contains(res.Text, "Done.") || meta.Session == "" || len(meta.Steps) != 1 || !strings.HasPrefix(meta.Steps[0], "file_change ") {
		t.Fatalf("first run: %+v\n%s\nstderr: %s", meta, res.Text, meta.Stderr)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello from codex\n" {
		t.Fatalf("the file: %q %v\n%s\nstderr: %s", b, err, res.Text, meta.Stderr)
	}
	if len(reports) != 1 || !strings.HasPrefix(reports[0].Message, "file_change ") {
		t.Fatalf("progress: %+v", reports)
	}
	for _, tool := range srv.Chats()[0].Request.Tools {
		if strings.Contains(tool.Name, "shell") || strings.Contains(tool.Name, "exec") {
			t.Errorf("Codex was offered a command tool: %s", tool.Name)
		}
	}
	res = run(`{"agent":"codex","task":"what did you write?","session":"` + meta.Session + `"}`)
	if res.IsError || !strings.Contains(res.Text, "earlier in this session") || res.Meta.(*Meta).Session != meta.Session {
		t.Fatalf("follow-up: %+v\n%s", res.Meta, res.Text)
	}
	last := srv.Chats()[len(srv.Chats())-1].Request
	var sawDone bool
	for _, m := range last.Messages {
		sawDone = sawDone || strings.Contains(m.Content, "Done.")
	}
	if !sawDone {
		t.Fatalf("the resumed session lost its history: %+v", last.Messages)
	}
	res = run(`{"agent":"codex","task":"write outside the workspace"}`)
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("Codex wrote outside the workspace: %v\n%s", err, res.Text)
	}
	var refused bool
	for _, c := range srv.Chats() {
		for _, m := range c.Request.Messages {
			refused = refused || (m.Role == llm.RoleTool && m.ToolCallID == "call_2" && strings.Contains(m.Content, "rejected"))
		}
	}
	if !refused {
		t.Fatalf("the model was not told its write was refused: %s", res.Text)
	}
}
