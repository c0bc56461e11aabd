package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// claudeOnScriptedModel puts the real Claude Code (build/tools) on the PATH, pointed at the
// scripted model's Anthropic API, in a home of its own.
func claudeOnScriptedModel(t *testing.T, srv *scripted.Server) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("PATH", filepath.Join(testtools.Dir(t), ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "test", "ANTHROPIC_MODEL": scripted.DemoModelName,
		"ANTHROPIC_SMALL_FAST_MODEL": scripted.DemoModelName, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_AUTOUPDATER": "1", "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude")} {
		t.Setenv(k, v)
	}
}

// claudeScript is Claude Code's side of the conversation (agentScript): it writes with Write.
func claudeScript(ws string) func(llm.Request) scripted.Reply {
	return agentScript("Claude wrote hello.txt.",
		tc("toolu_1", "Write", map[string]string{"file_path": filepath.Join(ws, "hello.txt"), "content": "hello from claude\n"}))
}

// TestConversationWithClaudeCode: a conversation whose model is the real Claude Code (on the
// scripted model): the message goes to Claude Code in the workspace, its tool call and its
// result are logged as the conversation's tool call and result, its text as the reply with
// its session; the next message resumes that session. Without a workspace the turn is refused
// with the reason.
func TestConversationWithClaudeCode(t *testing.T) {
	st, srv := runEnv(t)
	claudeOnScriptedModel(t, srv)
	ws := t.TempDir()
	srv.DefaultFunc(claudeScript(ws))
	c := newAgentChat(t, st, "claude", "Claude Code")
	// Running the agent is asked as the delegate tool's call is: the user allows it for the
	// session on the first message, and is not asked again.
	if _, err := st.Append(c.id, store.EventUser, store.UserMessage{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.a.StartTurn(context.Background(), session.Request{Session: c.id, Model: "agent:claude"}); err == nil || !strings.Contains(err.Error(), "set this conversation's workspace") {
		t.Fatalf("without a workspace: %v", err)
	}
	c.setWorkspace(ws)
	if end := c.send("write hello.txt, safe", "safe"); end.Reason != store.EndError || !strings.Contains(end.Err.Error(), "Running Claude Code here is not allowed") {
		t.Fatalf("under --approve safe: %+v", end)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.txt")); err == nil {
		t.Fatal("Claude Code ran under --approve safe")
	}
	if end := c.send("write hello.txt please", ""); end.Reason != store.EndDone || len(c.asked) != 1 || !strings.HasPrefix(c.asked[0].Subject, "claude # runs this conversation") {
		t.Fatalf("turn %+v, asked %+v", end, c.asked)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello from claude\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	got, agentSession := c.log()
	if got != "user, user, error, turn_end, user, call:delegate, approval:, approval:allow_session, result:delegate, call:Write, result:Write, reply:Claude wrote hello.txt., turn_end" {
		t.Fatalf("the log: %s", got)
	}
	c.checkFollowUp(agentSession)
}

// TestAgentConversationEndToEnd: the same conversation with Claude Code through the window's
// front end in headless Chromium against `tofu serve` (frontend/e2e/agentchat.e2e.mjs): picked
// in the model picker, its tool call a card, its reply and the resumed follow-up shown. It runs
// when TOFU_E2E=1, like the other browser tests.
func TestAgentConversationEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	srv := scripted.New(t, scripted.DemoModel())
	isolate(t, srv.URL)
	claudeOnScriptedModel(t, srv)
	ws := t.TempDir()
	srv.DefaultFunc(claudeScript(ws))
	_, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "agentchat.e2e.mjs", "agent-conversation.png", "TOFU_E2E_WORKSPACE="+ws)
	stop()
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello from claude\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
}
