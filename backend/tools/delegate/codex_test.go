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

const codexModel = "gpt-5.5"

// codexEnvFor points Codex (npm @openai/codex, build/tools) at the scripted model's Responses
// API through a CODEX_HOME of its own (testtools.CodexHome).
func codexEnvFor(t testing.TB, srv *scripted.Server) []string {
	t.Helper()
	home, tmp := testtools.CodexHome(t, srv.URL+"/v1", codexModel)
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
	model := scripted.DemoModel()
	model.Name = codexModel
	srv := scripted.New(t, model)
	ws := t.TempDir()
	target := filepath.Join(ws, "hello.txt")
	outside := filepath.Join(t.TempDir(), "escaped.txt")
	patch := func(path, line string) json.RawMessage {
		return jsonArgs("*** Begin Patch\n*** Add File: " + path + "\n+" + line + "\n*** End Patch\n")
	}
	scriptAgent(srv, "Done.",
		scriptedCall{"write hello", llm.ToolCall{ID: "call_1", Name: "apply_patch", Arguments: patch("hello.txt", "hello from codex")}},
		scriptedCall{"write outside", llm.ToolCall{ID: "call_2", Name: "apply_patch", Arguments: patch(outside, "escaped")}})
	a := newAgentRun(t, ws, "codex", cx, codexEnvFor(t, srv))
	res := a.run(`{"agent":"codex","task":"write hello.txt saying hello"}`)
	meta := res.Meta.(*Meta)
	if res.IsError || !strings.Contains(res.Text, "Done.") || meta.Session == "" {
		t.Fatalf("first run: %+v\n%s\nstderr: %s", meta, res.Text, meta.Stderr)
	}
	a.checkStep(meta, "file_change")
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello from codex\n" {
		t.Fatalf("the file: %q %v\n%s\nstderr: %s", b, err, res.Text, meta.Stderr)
	}
	for _, tool := range srv.Chats()[0].Request.Tools {
		if strings.Contains(tool.Name, "shell") || strings.Contains(tool.Name, "exec") {
			t.Errorf("Codex was offered a command tool: %s", tool.Name)
		}
	}
	a.checkFollowUp(srv, "codex", meta.Session, "Done.")
	res = a.run(`{"agent":"codex","task":"write outside the workspace"}`)
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("Codex wrote outside the workspace: %v\n%s", err, res.Text)
	}
	if !toolResultSaid(srv, "call_2", func(c string) bool { return strings.Contains(c, "rejected") }) {
		t.Fatalf("the model was not told its write was refused: %s", res.Text)
	}
}
