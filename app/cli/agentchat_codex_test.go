package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// codexOnScriptedModel puts the real Codex (build/tools) on the PATH, pointed at the scripted
// model's Responses API through a CODEX_HOME of its own (testtools.CodexHome). The model is
// served as gpt-5.5, which Codex's catalog knows (it offers apply_patch only to such a model).
func codexOnScriptedModel(t *testing.T, srv *scripted.Server) {
	t.Helper()
	codex := scripted.DemoModel()
	codex.Name = "gpt-5.5"
	srv.SetModels(scripted.DemoModel(), codex)
	home, tmp := testtools.CodexHome(t, srv.URL+"/v1", "gpt-5.5")
	bin := filepath.Dir(testtools.Node(t, ".bin", "codex")) // fails, saying to run setup, when it is not installed
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("CODEX_HOME", home)
	t.Setenv("TMPDIR", tmp)
	t.Setenv("TOFU_TEST_KEY", "test")
}

// TestConversationWithCodex: a conversation whose model is the real Codex (on the scripted
// model): asked once, then the message makes Codex patch a file into the workspace, its
// file_change is logged as the conversation's tool call and result and its text as the reply
// with its session; the next message resumes that session.
func TestConversationWithCodex(t *testing.T) {
	st, srv := runEnv(t)
	ws := t.TempDir()
	codexOnScriptedModel(t, srv)
	srv.DefaultFunc(agentScript("Codex wrote hello.txt.",
		tc("call_1", "apply_patch", "*** Begin Patch\n*** Add File: hello.txt\n+hello from codex\n*** End Patch\n")))
	c := newAgentChat(t, st, "codex", "Codex")
	c.setWorkspace(ws)
	if end := c.send("write hello.txt please", ""); end.Reason != store.EndDone || len(c.asked) != 1 || !strings.HasPrefix(c.asked[0].Subject, "codex # runs this conversation") {
		t.Fatalf("turn %+v, asked %+v", end, c.asked)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello from codex\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	got, agentSession := c.log()
	if got != "user, call:delegate, approval:, approval:allow_session, result:delegate, call:file_change, result:file_change, reply:Codex wrote hello.txt., turn_end" || agentSession == "" {
		t.Fatalf("the log: %s (session %q)", got, agentSession)
	}
	c.checkFollowUp(agentSession)
}
