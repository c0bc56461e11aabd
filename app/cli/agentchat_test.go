package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
)

// claudeOnScriptedModel puts the real Claude Code (build/tools) on the PATH, pointed at the
// scripted model's Anthropic API, in a home of its own.
func claudeOnScriptedModel(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("PATH", filepath.Join(testtools.Dir(t), ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "test", "ANTHROPIC_MODEL": llmtest.DemoModelName,
		"ANTHROPIC_SMALL_FAST_MODEL": llmtest.DemoModelName, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_AUTOUPDATER": "1", "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude")} {
		t.Setenv(k, v)
	}
}

// claudeScript is Claude Code's side of the conversation: write hello.txt on the first
// message, then say so; answer a follow-up from the resumed session's history.
func claudeScript(ws string) func(llm.Request) llmtest.Reply {
	return func(r llm.Request) llmtest.Reply {
		last := llmtest.LastUser(r)
		var history string
		for _, m := range r.Messages {
			history += m.Content + "\n"
		}
		switch {
		case strings.Contains(last, "what did you write"):
			if strings.Contains(history, "Claude wrote hello.txt.") {
				return llmtest.Reply{Text: "Earlier in this session I wrote hello.txt."}
			}
			return llmtest.Reply{Text: "I do not remember writing anything."}
		case strings.Contains(last, "write hello.txt") && toolStep(r) == 0:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{tc("toolu_1", "Write", map[string]string{"file_path": filepath.Join(ws, "hello.txt"), "content": "hello from claude\n"})}}
		case toolStep(r) > 0:
			return llmtest.Reply{Text: "Claude wrote hello.txt."}
		}
		return llmtest.Reply{Text: "ok"}
	}
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
	a, err := newApp(st, nopEmitter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var offered bool
	for _, m := range a.Models.Status().Models {
		offered = offered || (m.Name == "agent:claude" && m.Family == "Claude Code")
	}
	if !offered {
		t.Fatal("the model picker does not offer Claude Code")
	}
	info, _ := st.CreateSession("with claude")
	// Running the agent is asked as the delegate tool's call is: the user allows it for the
	// session on the first message, and is not asked again.
	var asked []store.Approval
	send := func(text, approve string) agent.End {
		t.Helper()
		if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: text}); err != nil {
			t.Fatal(err)
		}
		turn, err := a.StartTurn(context.Background(), session.Request{Session: info.ID, Model: "agent:claude", Approve: approve,
			Prompt: func(ap store.Approval) {
				asked = append(asked, ap)
				go func() {
					if err := a.Runner.Approve(info.ID, ap.CallID, "allow_session"); err != nil {
						t.Errorf("allow for the session: %v", err)
						a.Runner.Approve(info.ID, ap.CallID, "deny")
					}
				}()
			}})
		if err != nil {
			t.Fatal(err)
		}
		return turn.Wait()
	}
	if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.StartTurn(context.Background(), session.Request{Session: info.ID, Model: "agent:claude"}); err == nil || !strings.Contains(err.Error(), "set this conversation's workspace") {
		t.Fatalf("without a workspace: %v", err)
	}
	if _, err := st.UpdateSession(info.ID, func(s *store.SessionInfo) { s.Workspace = ws }); err != nil {
		t.Fatal(err)
	}
	if end := send("write hello.txt, safe", "safe"); end.Reason != store.EndError || !strings.Contains(end.Err.Error(), "Running Claude Code here is not allowed") {
		t.Fatalf("under --approve safe: %+v", end)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.txt")); err == nil {
		t.Fatal("Claude Code ran under --approve safe")
	}
	if end := send("write hello.txt please", ""); end.Reason != store.EndDone || len(asked) != 1 || !strings.HasPrefix(asked[0].Subject, "claude # runs this conversation") {
		t.Fatalf("turn %+v, asked %+v", end, asked)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello from claude\n" {
		t.Fatalf("the file: %q %v", b, err)
	}
	evs, _ := st.Events(info.ID)
	var kinds []string
	var agentSession string
	for _, ev := range evs {
		switch ev.Type {
		case store.EventAssistant:
			var m store.AssistantMessage
			ev.Decode(&m)
			if len(m.ToolCalls) == 1 {
				kinds = append(kinds, "call:"+m.ToolCalls[0].Name)
			} else {
				kinds = append(kinds, "reply:"+m.Text)
			}
			if m.Model != "agent:claude" || (m.AgentSession == "" && m.ToolCalls[0].Name != "delegate") {
				t.Fatalf("a reply without its agent or session: %+v", m)
			}
			agentSession = m.AgentSession
		case store.EventToolResult:
			var r store.ToolResult
			ev.Decode(&r)
			kinds = append(kinds, "result:"+r.Name)
		case store.EventTurnEnd, store.EventUser, store.EventError:
			kinds = append(kinds, string(ev.Type))
		case store.EventApproval:
			var ap store.Approval
			ev.Decode(&ap)
			kinds = append(kinds, "approval:"+string(ap.Decision))
		}
	}
	if got := strings.Join(kinds, ", "); got != "user, user, error, turn_end, user, call:delegate, approval:, approval:allow_session, result:delegate, call:Write, result:Write, reply:Claude wrote hello.txt., turn_end" {
		t.Fatalf("the log: %s", got)
	}
	if end := send("what did you write?", ""); end.Reason != store.EndDone || len(asked) != 1 {
		t.Fatalf("the follow-up: %+v, asked again: %+v", end, asked)
	}
	evs, _ = st.Events(info.ID)
	var last store.AssistantMessage
	for _, ev := range evs {
		if ev.Type == store.EventAssistant {
			ev.Decode(&last)
		}
	}
	if last.Text != "Earlier in this session I wrote hello.txt." || last.AgentSession != agentSession {
		t.Fatalf("the follow-up did not resume Claude Code's session %s: %+v", agentSession, last)
	}
}

// TestAgentConversationEndToEnd: the same conversation with Claude Code through the window's
// front end in headless Chromium against `tofu serve` (frontend/e2e/agentchat.e2e.mjs): picked
// in the model picker, its tool call a card, its reply and the resumed follow-up shown. It runs
// when TOFU_E2E=1, like the other browser tests.
func TestAgentConversationEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	srv := llmtest.New(t, llmtest.DemoModel())
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
