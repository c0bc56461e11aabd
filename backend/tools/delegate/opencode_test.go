package delegate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/testtools"
)

// openCodeEnv points OpenCode (npm opencode-ai, build/tools) at the scripted model through a
// temporary config with an OpenAI-compatible provider, in a home of its own, so nothing it
// does reaches its hosted providers or the user's settings.
func openCodeEnv(t testing.TB, srv *scripted.Server) []string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "opencode.json")
	body, _ := json.Marshal(map[string]any{
		"provider": map[string]any{"tofu": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Tofu scripted model",
			"options": map[string]any{"baseURL": srv.URL + "/v1", "apiKey": "test"},
			"models":  map[string]any{scripted.DemoModelName: map[string]any{}},
		}},
		"model": "tofu/" + scripted.DemoModelName, "small_model": "tofu/" + scripted.DemoModelName,
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
	srv := scripted.New(t, scripted.DemoModel())
	ws := t.TempDir()
	target := filepath.Join(ws, "hello.txt")
	scriptAgent(srv, "Done.",
		scriptedCall{"write hello", llm.ToolCall{ID: "call_1", Name: "write", Arguments: jsonArgs(map[string]string{"filePath": target, "content": "hello from opencode\n"})}},
		scriptedCall{"run ls", llm.ToolCall{ID: "call_2", Name: "bash", Arguments: jsonArgs(map[string]string{"command": "ls", "description": "list"})}})
	a := newAgentRun(t, ws, "opencode", oc, openCodeEnv(t, srv))
	res := a.run(`{"agent":"opencode","task":"write hello.txt saying hello"}`)
	meta := res.Meta.(*Meta)
	if res.IsError || !strings.Contains(res.Text, "Done.") || !strings.HasPrefix(meta.Session, "ses_") {
		t.Fatalf("first run: %+v\n%s\nstderr: %s", meta, res.Text, meta.Stderr)
	}
	a.checkStep(meta, "write")
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello from opencode\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	a.checkFollowUp(srv, "opencode", meta.Session, "Done.")
	// Commands are refused: the model's bash call comes back as an error to it.
	res = a.run(`{"agent":"opencode","task":"run ls"}`)
	if !toolResultSaid(srv, "call_2", func(c string) bool { return !strings.Contains(c, "hello.txt") }) {
		t.Fatalf("the command ran: %s", res.Text)
	}
}
