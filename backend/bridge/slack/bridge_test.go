package slack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/slack"
	"github.com/tofu-research/tofu/backend/bridge/slack/slacktest"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// The workspace's people, each in a direct message with the bot, and a channel the bot is in.
const (
	owner        = "U0OWNER"
	stranger     = "U0STRANGER"
	ownerDM      = "D0OWNER"
	strangerDM   = "D0STRANGER"
	channel      = "C0GENERAL"
	questionText = "Reply yes to allow it once"
)

// fixture is Tofu's side and Slack's (the loopback one).
type fixture struct {
	*bridgetest.Tofu
	sl *slacktest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{Tofu: bridgetest.New(t), sl: slacktest.New()}
	t.Cleanup(f.sl.Close)
	return f
}

// start runs a bridge on the loopback Slack, the owner allowed.
func (f *fixture) start(t *testing.T) {
	t.Helper()
	p, err := slack.New(slack.Options{AppToken: slacktest.AppToken, BotToken: slacktest.BotToken, API: f.sl.URL})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(t, bridge.Options{Platform: p, Allowed: []string{owner}})
}

// answer scripts the model: a turn whose message holds pairs[i] is answered pairs[i+1].
func (f *fixture) answer(pairs ...string) {
	for i := 0; i+1 < len(pairs); i += 2 {
		f.Model.OnUser(pairs[i]).Reply(scripted.Reply{Text: pairs[i+1]})
	}
}

// waitFor waits until the chat's last message holds want and is whole (a streaming reply ends
// in " …" until its last edit), and returns the chat.
func (f *fixture) waitFor(t *testing.T, chat, want string) []slacktest.Message {
	t.Helper()
	shows := func(ms []slacktest.Message) bool {
		return len(ms) > 0 && strings.Contains(ms[len(ms)-1].Text, want) && !bridgetest.Partial(ms[len(ms)-1].Text)
	}
	msgs := f.sl.Wait(chat, bridgetest.Patience, shows)
	if !shows(msgs) {
		t.Fatalf("the chat never showed %q; it holds %+v\nlog:\n%s", want, msgs, f.Log())
	}
	return msgs
}

// allAcked waits until Slack has every envelope it sent acknowledged, and fails if not.
func (f *fixture) allAcked(t *testing.T) {
	t.Helper()
	if !f.sl.Until(bridgetest.Patience, func() bool { _, n := f.sl.Acks(); return n == 0 }) {
		acked, n := f.sl.Acks()
		t.Fatalf("%d envelopes never acknowledged (%d were)", n, acked)
	}
}

// TestOwnerRunsATurnWithAnApprovalPressedAsAButton: the owner's direct message starts a turn
// in a session of its own (marked as Slack's); the write asks with Block Kit buttons; a
// stranger's press is refused, the owner's allows it, the answer arrives, and every envelope
// (the messages, the presses, the bot's own posts and edits echoed back) is acknowledged.
func TestOwnerRunsATurnWithAnApprovalPressedAsAButton(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{bridgetest.WriteCall("a.txt", "hello")}})
	f.Model.Default(scripted.Reply{Text: "I wrote a.txt."})
	f.start(t)
	f.sl.Say(ownerDM, owner, "write hello into a.txt")
	msgs := f.waitFor(t, ownerDM, questionText)
	ask := msgs[len(msgs)-1]
	if !strings.Contains(ask.Text, "write_file") || len(ask.Buttons) != 2 ||
		ask.Buttons[0] != (slacktest.Button{ActionID: "tofu-yes", Value: "yes:call_w1", Label: "Allow once"}) ||
		ask.Buttons[1] != (slacktest.Button{ActionID: "tofu-no", Value: "no:call_w1", Label: "Deny"}) {
		t.Fatalf("the question = %+v", ask)
	}
	// A stranger pressing the owner's button is not an answer.
	f.sl.Press(stranger, ask, "yes:call_w1")
	f.sl.Press(owner, ask, "yes:call_w1")
	msgs = f.waitFor(t, ownerDM, "I wrote a.txt.")
	if b, err := os.ReadFile(filepath.Join(f.WS, "a.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
	if len(msgs) != 3 || !strings.Contains(msgs[1].Text, "answers only its owner") || msgs[2].Text != "I wrote a.txt." {
		t.Fatalf("the chat = %+v", msgs)
	}
	sessions, _ := f.Store.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions", len(sessions))
	}
	if s := sessions[0]; s.Title != "write hello into a.txt" || s.Workspace != f.WS || s.Bridge != "slack" || len(s.ToolsOff) != 3 {
		t.Fatalf("session = %+v", s)
	}
	if !strings.Contains(f.Log(), "refused a message from "+stranger) {
		t.Fatalf("the stranger's press was not logged as refused:\n%s", f.Log())
	}
	f.allAcked(t)
	if users := f.Users(t); users != 1 {
		t.Fatalf("%d user messages: the bot's own posts were taken as messages?", users)
	}
}

// TestStrangerIsRefusedOnce: a user not on the list gets one polite refusal, however many
// messages they send, and none of them reaches the model.
func TestStrangerIsRefusedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.Default(scripted.Reply{Text: "hello owner"})
	f.start(t)
	f.sl.Say(strangerDM, stranger, "hi, run rm -rf for me")
	f.sl.Say(strangerDM, stranger, "please?")
	f.sl.Say(ownerDM, owner, "hi")
	f.waitFor(t, ownerDM, "hello owner")
	msgs := f.sl.Sent(strangerDM)
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "answers only its owner") {
		t.Fatalf("the stranger's chat = %+v", msgs)
	}
	for _, c := range f.Model.Chats() {
		if strings.Contains(scripted.LastUser(*c.Request), "rm -rf") {
			t.Fatal("the stranger's message reached the model")
		}
	}
	if n := strings.Count(f.Log(), "refused a message from "+stranger); n != 2 {
		t.Fatalf("%d refusals logged, want 2:\n%s", n, f.Log())
	}
}

// TestAChannelThreadIsAConversation: a message in a channel is answered in its thread; a reply
// in that thread continues the same session; another message in the channel starts another.
func TestAChannelThreadIsAConversation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.answer("first", "answer one", "follow", "answer two")
	f.Model.Default(scripted.Reply{Text: "answer three"})
	f.start(t)
	root := f.sl.Say(channel, owner, "first question")
	thread := channel + ":" + root
	f.waitFor(t, thread, "answer one")
	f.sl.Say(thread, owner, "a follow-up")
	msgs := f.waitFor(t, thread, "answer two")
	if len(msgs) != 2 {
		t.Fatalf("the thread = %+v", msgs)
	}
	other := channel + ":" + f.sl.Say(channel, owner, "something else")
	f.waitFor(t, other, "answer three")
	if ms := f.sl.Sent(channel); len(ms) != 0 {
		t.Fatalf("answers outside a thread: %+v", ms)
	}
	sessions, _ := f.Store.Sessions()
	if len(sessions) != 2 {
		t.Fatalf("%d sessions, want one per thread", len(sessions))
	}
	f.allAcked(t)
}

// TestTokens: the secret kept for a Slack bridge holds both tokens, in either order; anything
// else is refused with what is missing.
func TestTokens(t *testing.T) {
	t.Parallel()
	app, bot, err := slack.ParseTokens(" xoxb-1-b\nxapp-1-a ")
	if err != nil || app != "xapp-1-a" || bot != "xoxb-1-b" {
		t.Fatalf("ParseTokens = %q, %q, %v", app, bot, err)
	}
	for _, bad := range []string{"", "xapp-1-a", "xoxb-1-b", "xapp-1-a xoxp-user"} {
		if _, _, err := slack.ParseTokens(bad); err == nil || !strings.Contains(err.Error(), "xapp-") {
			t.Errorf("ParseTokens(%q) = %v", bad, err)
		}
	}
	if _, err := slack.New(slack.Options{AppToken: "xoxb-1-b", BotToken: "xoxb-1-b"}); err == nil {
		t.Error("New took a bot token for the app-level token")
	}
}

// TestSlashCommandsAndMentions: Slack sends "/…" as a slash command, never as a message: "/tofu
// status" and "/tofu stop" typed in a channel act on the thread the bridge last answered there,
// "/tofu" alone in a direct message is /status; a mention of the bot in front of a message is
// not part of the task.
func TestSlashCommandsAndMentions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	f.Model.OnUser("long task").Reply(scripted.Reply{Text: "working on it", Hold: hold})
	f.start(t)
	thread := channel + ":" + f.sl.Say(channel, owner, "<@"+slacktest.BotUser+"> a long task")
	f.sl.Wait(thread, bridgetest.Patience, func(ms []slacktest.Message) bool { return len(ms) == 1 })
	if chats := f.Model.Chats(); len(chats) != 1 || scripted.LastUser(*chats[0].Request) != "a long task" {
		t.Fatalf("the model was asked %+v", chats)
	}
	f.sl.Command(channel, owner, "/tofu", "status")
	f.waitFor(t, thread, "Running for")
	f.sl.Command(channel, owner, "/tofu", "stop")
	msgs := f.sl.Wait(thread, bridgetest.Patience, func(ms []slacktest.Message) bool { return strings.HasSuffix(ms[0].Text, "(stopped)") })
	if !strings.HasPrefix(msgs[0].Text, "working") || !strings.HasSuffix(msgs[0].Text, "(stopped)") {
		t.Fatalf("the thread after /tofu stop = %+v", msgs)
	}
	f.sl.Command(ownerDM, owner, "/tofu", "")
	f.waitFor(t, ownerDM, "No conversation yet")
	f.allAcked(t)
}
