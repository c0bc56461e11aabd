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

// codexOnScriptedModel puts the real Codex (build/tools) on the PATH, pointed at the scripted
// model's Responses API through a config.toml in a CODEX_HOME of its own. The model is served
// as gpt-5.5, which Codex's catalog knows (it offers apply_patch only to such a model); its
// TMPDIR is inside that home, since Codex will not put its sandbox helper under /tmp.
func codexOnScriptedModel(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	codex := llmtest.DemoModel()
	codex.Name = "gpt-5.5"
	srv.SetModels(llmtest.DemoModel(), codex)
	home := t.TempDir()
	cfg := `model = "gpt-5.5"
model_provider = "tofu"
check_for_update_on_startup = false

[model_providers.tofu]
name = "Tofu scripted model"
base_url = "` + srv.URL + `/v1"
wire_api = "responses"
env_key = "TOFU_TEST_KEY"
request_max_retries = 0
stream_max_retries = 0
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Dir(testtools.Node(t, ".bin", "codex")) // fails, saying to run setup, when it is not installed
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("CODEX_HOME", home)
	t.Setenv("TMPDIR", filepath.Join(home, "tmp"))
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
	srv.DefaultFunc(func(r llm.Request) llmtest.Reply {
		last := llmtest.LastUser(r)
		var history string
		for _, m := range r.Messages {
			history += m.Content + "\n"
		}
		switch {
		case strings.Contains(last, "what did you write"):
			if strings.Contains(history, "Codex wrote hello.txt.") {
				return llmtest.Reply{Text: "Earlier in this session I wrote hello.txt."}
			}
			return llmtest.Reply{Text: "I do not remember writing anything."}
		case strings.Contains(last, "write hello.txt") && toolStep(r) == 0:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{tc("call_1", "apply_patch", "*** Begin Patch\n*** Add File: hello.txt\n+hello from codex\n*** End Patch\n")}}
		case toolStep(r) > 0:
			return llmtest.Reply{Text: "Codex wrote hello.txt."}
		}
		return llmtest.Reply{Text: "ok"}
	})
	a, err := newApp(st, nopEmitter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var offered bool
	for _, m := range a.Models.Status().Models {
		offered = offered || (m.Name == "agent:codex" && m.Family == "Codex")
	}
	if !offered {
		t.Fatal("the model picker does not offer Codex")
	}
	info, _ := st.CreateSession("with codex")
	if _, err := st.UpdateSession(info.ID, func(s *store.SessionInfo) { s.Workspace = ws }); err != nil {
		t.Fatal(err)
	}
	var asked []store.Approval
	send := func(text string) agent.End {
		t.Helper()
		if _, err := st.Append(info.ID, store.EventUser, store.UserMessage{Text: text}); err != nil {
			t.Fatal(err)
		}
		turn, err := a.StartTurn(context.Background(), session.Request{Session: info.ID, Model: "agent:codex",
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
	if end := send("write hello.txt please"); end.Reason != store.EndDone || len(asked) != 1 || !strings.HasPrefix(asked[0].Subject, "codex # runs this conversation") {
		t.Fatalf("turn %+v, asked %+v", end, asked)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello from codex\n" {
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
				continue
			}
			kinds = append(kinds, "reply:"+m.Text)
			agentSession = m.AgentSession
		case store.EventToolResult:
			var r store.ToolResult
			ev.Decode(&r)
			kinds = append(kinds, "result:"+r.Name)
		case store.EventTurnEnd, store.EventUser, store.EventError:
			kinds = append(kinds, string(ev.Type))
		}
	}
	if got := strings.Join(kinds, ", "); got != "user, call:delegate, result:delegate, call:file_change, result:file_change, reply:Codex wrote hello.txt., turn_end" || agentSession == "" {
		t.Fatalf("the log: %s (session %q)", got, agentSession)
	}
	if end := send("what did you write?"); end.Reason != store.EndDone || len(asked) != 1 {
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
		t.Fatalf("the follow-up did not resume Codex's session %s: %+v", agentSession, last)
	}
}
