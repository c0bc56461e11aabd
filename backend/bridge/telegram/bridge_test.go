package telegram_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/telegram"
	"github.com/tofu-research/tofu/backend/bridge/telegram/telegramtest"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// The chat's people: the owner (allowed) and a stranger, each in a private chat with the bot.
const (
	owner    = 1001
	stranger = 2002
)

var ownerChat = fmt.Sprint(owner)

// fixture is Tofu's side and the Telegram side (the loopback Bot API).
type fixture struct {
	*bridgetest.Tofu
	tg *telegramtest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{Tofu: bridgetest.New(t), tg: telegramtest.New()}
	t.Cleanup(f.tg.Close)
	return f
}

// start runs a bridge on the loopback Bot API, the owner allowed.
func (f *fixture) start(t *testing.T) {
	t.Helper()
	p, err := telegram.New(telegram.Options{Token: telegramtest.Token, API: f.tg.URL, PollTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(t, bridge.Options{Platform: p, Allowed: []string{ownerChat}})
}

// waitFor waits until the chat's last message holds want and is whole (a streaming reply ends
// in " …" until its last edit), and returns the chat.
func (f *fixture) waitFor(t *testing.T, chat, want string) []telegramtest.Message {
	t.Helper()
	shows := func(ms []telegramtest.Message) bool {
		return len(ms) > 0 && strings.Contains(ms[len(ms)-1].Text, want) && !bridgetest.Partial(ms[len(ms)-1].Text)
	}
	msgs := f.tg.Wait(chat, bridgetest.Patience, shows)
	if !shows(msgs) {
		t.Fatalf("the chat never showed %q; it holds %+v\nlog:\n%s", want, msgs, f.Log())
	}
	return msgs
}

// TestOwnerRunsATurnWithAnApprovalPressedAsAButton: the owner's message starts a turn in a
// session of its own (titled, in the bridge's workspace, marked as Telegram's, web/browser/
// desktop off); the write asks through the chat with buttons; the owner's press allows it and
// the answer arrives.
func TestOwnerRunsATurnWithAnApprovalPressedAsAButton(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{bridgetest.WriteCall("a.txt", "hello")}})
	f.Model.Default(scripted.Reply{Text: "I wrote a.txt."})
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
	if b, err := os.ReadFile(filepath.Join(f.WS, "a.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
	// The question, the stranger's refusal (their press was in this chat) and the answer.
	if len(msgs) != 3 || !strings.Contains(msgs[1].Text, "answers only its owner") || msgs[2].Text != "I wrote a.txt." {
		t.Fatalf("the chat = %+v", msgs)
	}
	sessions, _ := f.Store.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions", len(sessions))
	}
	s := sessions[0]
	if s.Title != "write hello into a.txt" || s.Workspace != f.WS || s.Bridge != "telegram" || len(s.ToolsOff) != 3 {
		t.Fatalf("session = %+v", s)
	}
	if !strings.Contains(f.Log(), "refused a message from 2002") {
		t.Fatalf("the stranger's press was not logged as refused:\n%s", f.Log())
	}
}

// TestStrangerIsRefusedOnce: a user not on the list gets one polite refusal, however many
// messages they send, and none of them reaches the model.
func TestStrangerIsRefusedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.Default(scripted.Reply{Text: "hello owner"})
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
	for _, c := range f.Model.Chats() {
		if strings.Contains(scripted.LastUser(*c.Request), "rm -rf") {
			t.Fatal("the stranger's message reached the model")
		}
	}
	if n := strings.Count(f.Log(), "refused a message from 2002"); n != 2 {
		t.Fatalf("%d refusals logged, want 2:\n%s", n, f.Log())
	}
}

// TestApprovalIsOnlyAReplyAfterTheQuestion: "yes" inside the task does not approve anything;
// a reply other than yes or no is not an answer; the reply "no" denies.
func TestApprovalIsOnlyAReplyAfterTheQuestion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{bridgetest.WriteCall("b.txt", "x")}})
	f.Model.DefaultFunc(func(r llm.Request) scripted.Reply {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == llm.RoleTool {
				return scripted.Reply{Text: "the tool said: " + r.Messages[i].Content}
			}
		}
		return scripted.Reply{Text: "no tool ran"}
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
	if _, err := os.Stat(filepath.Join(f.WS, "b.txt")); err == nil {
		t.Fatal("b.txt was written without a yes")
	}
}
