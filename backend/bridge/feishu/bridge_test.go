package feishu_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/feishu"
	"github.com/tofu-research/tofu/backend/bridge/feishu/feishutest"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// The people: the owner (allowed) and a stranger, each in a direct chat with the bot, and a
// group both are in.
const (
	owner         = "ou_0wner00000000000000000000000001"
	stranger      = "ou_5tranger000000000000000000000002"
	ownerChat     = "oc_0wnerp2p0000000000000000000001"
	strangerChat  = "oc_5trangerp2p00000000000000000002"
	groupChat     = "oc_gr0up000000000000000000000003"
	refusedLogged = "refused a message from " + stranger
)

// fixture is Tofu's side and Feishu's (the loopback platform).
type fixture struct {
	*bridgetest.Tofu
	fs *feishutest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{Tofu: bridgetest.New(t), fs: feishutest.New()}
	t.Cleanup(f.fs.Close)
	return f
}

func (f *fixture) platform(t *testing.T) *feishu.Platform {
	t.Helper()
	p, err := feishu.New(feishu.Options{AppID: feishutest.AppID, AppSecret: feishutest.AppSecret, Domain: f.fs.URL})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// start runs a bridge on the loopback platform, the owner allowed.
func (f *fixture) start(t *testing.T) {
	t.Helper()
	f.Start(t, bridge.Options{Platform: f.platform(t), Allowed: []string{owner}})
}

// waitFor waits until the conversation's last message holds want and is whole (a streaming
// reply ends in " …" until its last edit), and returns the conversation.
func (f *fixture) waitFor(t *testing.T, chat, want string) []feishutest.Message {
	t.Helper()
	shows := func(ms []feishutest.Message) bool {
		return len(ms) > 0 && strings.Contains(ms[len(ms)-1].Text, want) && !bridgetest.Partial(ms[len(ms)-1].Text)
	}
	msgs := f.fs.WaitSent(chat, bridgetest.Patience, shows)
	if !shows(msgs) {
		t.Fatalf("the chat never showed %q; it holds %+v\nlog:\n%s", want, msgs, f.Log())
	}
	return msgs
}

// TestOwnerRunsATurnWithAnApprovalPressedAsAButton: the owner's message starts a turn in a
// session of its own (titled, in the bridge's workspace, marked as Feishu's); the write asks
// through a card with two buttons; a stranger's press is refused, the owner's allows it and
// the answer arrives as a shared card (patchable for everyone).
func TestOwnerRunsATurnWithAnApprovalPressedAsAButton(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{bridgetest.WriteCall("a.txt", "hello")}})
	f.Model.Default(scripted.Reply{Text: "I wrote a.txt."})
	f.start(t)
	f.fs.Say(ownerChat, owner, "write hello into a.txt")
	msgs := f.waitFor(t, ownerChat, "Reply yes to allow it once")
	ask := msgs[len(msgs)-1]
	if !strings.Contains(ask.Text, "write_file") || len(ask.Buttons) != 2 || ask.Buttons[0].Value["press"] != "yes" ||
		ask.Buttons[1].Value["press"] != "no" || ask.Buttons[0].Value["call"] != "call_w1" || ask.Buttons[0].Label != "Allow once" {
		t.Fatalf("the question = %+v", ask)
	}
	f.fs.Press(ownerChat, stranger, ask.ID, ask.Buttons[0].Value)
	f.fs.Press(ownerChat, owner, ask.ID, ask.Buttons[0].Value)
	msgs = f.waitFor(t, ownerChat, "I wrote a.txt.")
	if b, err := os.ReadFile(filepath.Join(f.WS, "a.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
	if len(msgs) != 3 || !strings.Contains(msgs[1].Text, "answers only its owner") || msgs[2].Text != "I wrote a.txt." {
		t.Fatalf("the chat = %+v", msgs)
	}
	if cfg, _ := msgs[2].Card["config"].(map[string]any); cfg["update_multi"] != true {
		t.Fatalf("the answer's card is not shared (update_multi): %v", msgs[2].Card)
	}
	sessions, _ := f.Store.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions", len(sessions))
	}
	if s := sessions[0]; s.Title != "write hello into a.txt" || s.Workspace != f.WS || s.Bridge != "feishu" || len(s.ToolsOff) != 3 {
		t.Fatalf("session = %+v", s)
	}
	if !strings.Contains(f.Log(), refusedLogged) {
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
	f.fs.Say(strangerChat, stranger, "hi, run rm -rf for me")
	f.fs.Say(strangerChat, stranger, "please?")
	f.fs.Say(ownerChat, owner, "hi")
	f.waitFor(t, ownerChat, "hello owner")
	if n := f.WaitLogged(refusedLogged, 2); n != 2 {
		t.Fatalf("%d refusals logged, want 2:\n%s", n, f.Log())
	}
	msgs := f.fs.Sent(strangerChat)
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "answers only its owner") {
		t.Fatalf("the stranger's chat = %+v", msgs)
	}
	for _, c := range f.Model.Chats() {
		if strings.Contains(scripted.LastUser(*c.Request), "rm -rf") {
			t.Fatal("the stranger's message reached the model")
		}
	}
}

// TestGroupThreadIsOneConversation: in a group, a message mentioning the bot starts a thread
// (the answer is a reply in it), a message in that thread goes on in the same session, and
// another message starts another; the mention is not part of the task. Events arrive in two
// frames each (the SDK joins them).
func TestGroupThreadIsOneConversation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.fs.Fragment = true
	f.Model.OnUser("first").Reply(scripted.Reply{Text: "one"})
	f.Model.OnUser("second").Reply(scripted.Reply{Text: "two"})
	f.Model.OnUser("other").Reply(scripted.Reply{Text: "three"})
	f.start(t)
	root := f.fs.SayInGroup(groupChat, "", owner, "first question")
	thread := groupChat + ":" + root
	f.waitFor(t, thread, "one")
	f.fs.SayInGroup(groupChat, root, owner, "second question")
	msgs := f.waitFor(t, thread, "two")
	if len(msgs) != 2 {
		t.Fatalf("the thread = %+v", msgs)
	}
	other := f.fs.SayInGroup(groupChat, "", owner, "other question")
	f.waitFor(t, groupChat+":"+other, "three")
	sessions, _ := f.Store.Sessions()
	if len(sessions) != 2 {
		t.Fatalf("%d sessions, want 2 (one per thread)", len(sessions))
	}
	for _, s := range sessions {
		if strings.Contains(s.Title, "@_user_1") {
			t.Fatalf("the mention is in the task: %q", s.Title)
		}
	}
}

// TestCheckSaysWhoTheBotIs: tofu bridge test names the bot; a wrong secret says so; the
// domain setting picks Feishu's or Lark's address.
func TestCheckSaysWhoTheBotIs(t *testing.T) {
	t.Parallel()
	fs := feishutest.New()
	t.Cleanup(fs.Close)
	p, err := feishu.New(feishu.Options{AppID: feishutest.AppID, AppSecret: feishutest.AppSecret, Domain: fs.URL})
	if err != nil {
		t.Fatal(err)
	}
	who, err := p.Check(context.Background())
	if err != nil || who != "Tofu ("+feishutest.BotOpenID+")" || p.Self() != feishutest.BotOpenID {
		t.Fatalf("Check = %q, %v (self %q)", who, err, p.Self())
	}
	bad, err := feishu.New(feishu.Options{AppID: feishutest.AppID, AppSecret: "wrong-secret", Domain: fs.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "app secret invalid") {
		t.Fatalf("a wrong secret: %v", err)
	}
	for domain, want := range map[string]string{"": "https://open.feishu.cn", "feishu": "https://open.feishu.cn",
		"Lark": "https://open.larksuite.com", "https://open.example.com/": "https://open.example.com"} {
		if got, err := feishu.BaseURL(domain); err != nil || got != want {
			t.Errorf("BaseURL(%q) = %q, %v; want %q", domain, got, err, want)
		}
	}
	if _, err := feishu.BaseURL("open.feishu.cn"); err == nil {
		t.Error("a domain without a scheme was taken")
	}
	if _, err := feishu.New(feishu.Options{AppSecret: "s"}); err == nil || !strings.Contains(err.Error(), "app id") {
		t.Errorf("no app id: %v", err)
	}
}
