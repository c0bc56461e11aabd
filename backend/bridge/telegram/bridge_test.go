package telegram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/telegram"
	"github.com/tofu-research/tofu/backend/bridge/telegram/telegramtest"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// The chat's people: the owner (allowed) and a stranger, each in a private chat with the bot.
const (
	owner    = 1001
	stranger = 2002
)

var ownerChat = fmt.Sprint(owner)

// patience bounds every wait on the chat: a guard against a hang, never a speed check.
const patience = 60 * time.Second

// fixture is Tofu's side (a real store, the session runner on the scripted model) and the
// Telegram side (the loopback Bot API); a bridge runs between them until stopped.
type fixture struct {
	dir   string
	st    *store.Store
	model *llmtest.Server
	tg    *telegramtest.Server
	ws    string

	mu   sync.Mutex
	logs []string

	runner *session.Runner
	b      *bridge.Bridge
	cancel context.CancelFunc
	done   chan error
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), model: llmtest.New(t, llmtest.DemoModel()), tg: telegramtest.New(), ws: t.TempDir()}
	t.Cleanup(f.tg.Close)
	var err error
	if f.st, err = store.Open(f.dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.stop()
		f.st.Close()
	})
	return f
}

// start runs a bridge (and a runner of its own: a new process's state) on the fixture's store.
func (f *fixture) start(t *testing.T) {
	t.Helper()
	provider := ollama.New(f.model.URL)
	cfg := config.Config{}
	cfg.Models.Main = llmtest.DemoModelName
	f.runner = session.New(session.Options{
		Store:    f.st,
		Provider: func() (llm.Provider, string, error) { return provider, f.model.URL, nil },
		Config:   func() (config.Config, error) { return cfg, nil },
	})
	p, err := telegram.New(telegram.Options{Token: telegramtest.Token, API: f.tg.URL, PollTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f.b, err = bridge.New(bridge.Options{
		Name: "telegram", Platform: p, Store: f.st, Runner: f.runner, Allowed: []string{ownerChat},
		Workspace: f.ws, EditEvery: 20 * time.Millisecond, FirstBackoff: 10 * time.Millisecond,
		Title: func(s string) string { return "chat: " + s },
		Logf: func(format string, args ...any) {
			f.mu.Lock()
			f.logs = append(f.logs, fmt.Sprintf(format, args...))
			f.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel, f.done = cancel, make(chan error, 1)
	go func() { f.done <- f.b.Run(ctx) }()
}

// stop ends the bridge as a killed Tofu would leave it: its context cancelled, its turns cut,
// nothing in memory kept.
func (f *fixture) stop() {
	if f.cancel == nil {
		return
	}
	f.cancel()
	<-f.done
	f.runner.Shutdown()
	f.cancel = nil
}

func (f *fixture) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.logs, "\n")
}

// waitFor waits until the chat's last message holds want and is whole (a streaming reply ends
// in " …" until its last edit), and returns the chat.
func (f *fixture) waitFor(t *testing.T, chat, want string) []telegramtest.Message {
	t.Helper()
	shows := func(ms []telegramtest.Message) bool {
		return len(ms) > 0 && strings.Contains(ms[len(ms)-1].Text, want) && !strings.HasSuffix(ms[len(ms)-1].Text, " …")
	}
	msgs := f.tg.Wait(chat, patience, shows)
	if !shows(msgs) {
		t.Fatalf("the chat never showed %q; it holds %+v\nlog:\n%s", want, msgs, f.log())
	}
	return msgs
}

func firstStep(r llm.Request) bool {
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool {
			return false
		}
	}
	return true
}

func writeCall(path, content string) llm.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return llm.ToolCall{ID: "call_w1", Name: "write_file", Arguments: args}
}

// TestOwnerRunsATurnWithAnApprovalPressedAsAButton: the owner's message starts a turn in a
// session of its own (titled, in the bridge's workspace, marked as Telegram's, web/browser/
// desktop off); the write asks through the chat with buttons; the owner's press allows it and
// the answer arrives.
func TestOwnerRunsATurnWithAnApprovalPressedAsAButton(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.model.On(firstStep).Reply(llmtest.Reply{ToolCalls: []llm.ToolCall{writeCall("a.txt", "hello")}})
	f.model.Default(llmtest.Reply{Text: "I wrote a.txt."})
	f.start(t)
	f.tg.Say(owner, owner, "write hello into a.txt")
	msgs := f.waitFor(t, ownerChat, "Reply yes to allow it once")
	ask := msgs[len(msgs)-1]
	if !strings.Contains(ask.Text, "write_file") || len(ask.Buttons) != 2 || !strings.HasPrefix(ask.Buttons[0], "yes:") {
		t.Fatalf("the question = %+v", ask)
	}
	// A stranger pressing the owner's button is not an answer.
	f.tg.Press(owner, stranger, ask.ID, ask.Buttons[0])
	f.tg.Press(owner, owner, ask.ID, ask.Buttons[0])
	msgs = f.waitFor(t, ownerChat, "I wrote a.txt.")
	if b, err := os.ReadFile(filepath.Join(f.ws, "a.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
	// The question, the stranger's refusal (their press was in this chat) and the answer.
	if len(msgs) != 3 || !strings.Contains(msgs[1].Text, "answers only its owner") || msgs[2].Text != "I wrote a.txt." {
		t.Fatalf("the chat = %+v", msgs)
	}
	sessions, _ := f.st.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions", len(sessions))
	}
	s := sessions[0]
	if s.Title != "chat: write hello into a.txt" || s.Workspace != f.ws || s.Bridge != "telegram" || len(s.ToolsOff) != 3 {
		t.Fatalf("session = %+v", s)
	}
	if !strings.Contains(f.log(), "refused a message from 2002") {
		t.Fatalf("the stranger's press was not logged as refused:\n%s", f.log())
	}
}

// TestStrangerIsRefusedOnce: a user not on the list gets one polite refusal, however many
// messages they send, and none of them reaches the model.
func TestStrangerIsRefusedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.model.Default(llmtest.Reply{Text: "hello owner"})
	f.start(t)
	strangerChat := fmt.Sprint(stranger)
	f.tg.Say(stranger, stranger, "hi, run rm -rf for me")
	f.tg.Say(stranger, stranger, "please?")
	f.tg.Say(owner, owner, "hi")
	f.waitFor(t, ownerChat, "hello owner")
	msgs := f.tg.Sent(strangerChat)
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "answers only its owner") {
		t.Fatalf("the stranger's chat = %+v", msgs)
	}
	for _, c := range f.model.Chats() {
		if strings.Contains(llmtest.LastUser(*c.Request), "rm -rf") {
			t.Fatal("the stranger's message reached the model")
		}
	}
	if n := strings.Count(f.log(), "refused a message from 2002"); n != 2 {
		t.Fatalf("%d refusals logged, want 2:\n%s", n, f.log())
	}
}

// TestApprovalIsOnlyAReplyAfterTheQuestion: "yes" inside the task does not approve anything;
// a reply other than yes or no is not an answer; the reply "no" denies.
func TestApprovalIsOnlyAReplyAfterTheQuestion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.model.On(firstStep).Reply(llmtest.Reply{ToolCalls: []llm.ToolCall{writeCall("b.txt", "x")}})
	f.model.DefaultFunc(func(r llm.Request) llmtest.Reply {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == llm.RoleTool {
				return llmtest.Reply{Text: "the tool said: " + r.Messages[i].Content}
			}
		}
		return llmtest.Reply{Text: "no tool ran"}
	})
	f.start(t)
	f.tg.Say(owner, owner, "yes: write b.txt, and yes I approve everything")
	f.waitFor(t, ownerChat, "Reply yes to allow it once")
	f.tg.Say(owner, owner, "sure, go ahead")
	f.waitFor(t, ownerChat, "reply yes or no")
	f.tg.Say(owner, owner, "no")
	msgs := f.waitFor(t, ownerChat, "the tool said:")
	if last := msgs[len(msgs)-1].Text; !strings.Contains(strings.ToLower(last), "denied") {
		t.Fatalf("the answer after a no = %q", last)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "b.txt")); err == nil {
		t.Fatal("b.txt was written without a yes")
	}
}
