package feishu_test

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/feishu/feishutest"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// answers are the chat's messages that are not approval questions: the answers.
func answers(msgs []feishutest.Message) []feishutest.Message {
	var out []feishutest.Message
	for _, m := range msgs {
		if !strings.Contains(m.Text, "Reply yes to allow") {
			out = append(out, m)
		}
	}
	return out
}

// waitAck waits until the client answered the frame, and returns its code.
func (f *fixture) waitAck(t *testing.T, frame string) int {
	t.Helper()
	if frame == "" {
		t.Fatal("the event was not pushed (no client connected)")
	}
	f.fs.Wait(bridgetest.Patience, func() bool { return f.fs.Ack(frame) != 0 })
	return f.fs.Ack(frame)
}

// TestRedeliveredMessageIsAnsweredOnce: Feishu pushes an event again when it holds it
// unacknowledged; the same message pushed again is acknowledged and not answered twice.
func TestRedeliveredMessageIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.Default(scripted.Reply{Text: "Just once."})
	f.start(t)
	ev := f.fs.Say(ownerChat, owner, "answer me once")
	f.waitFor(t, ownerChat, "Just once.")
	if code := f.waitAck(t, f.fs.Redeliver(ev)); code != 200 {
		t.Fatalf("the redelivered event was answered %d", code)
	}
	f.fs.Say(ownerChat, owner, "and now this")
	msgs := f.fs.WaitSent(ownerChat, bridgetest.Patience, func(ms []feishutest.Message) bool { return len(ms) == 2 && ms[1].Text == "Just once." })
	if len(msgs) != 2 {
		t.Fatalf("the chat = %+v", msgs)
	}
	if users := f.Users(t); users != 2 {
		t.Fatalf("%d user messages taken, want 2 (the redelivered one not again)", users)
	}
}

// TestDroppedSocketReconnects: the websocket is lost; the SDK fetches a new endpoint and
// connects again by itself, and the next message is answered. When the endpoint cannot be
// had, the bridge says it is offline and tries again.
func TestDroppedSocketReconnects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.OnUser("before").Reply(scripted.Reply{Text: "answered before"})
	f.Model.OnUser("after").Reply(scripted.Reply{Text: "answered after"})
	f.Model.OnUser("busy").Reply(scripted.Reply{Text: "answered after the outage"})
	f.start(t)
	f.fs.Say(ownerChat, owner, "before the drop")
	f.waitFor(t, ownerChat, "answered before")
	f.fs.DropSocket()
	f.fs.Say(ownerChat, owner, "after the drop") // pushed once the client is back
	f.waitFor(t, ownerChat, "answered after")
	if n := f.fs.Connects(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
	if strings.Contains(f.Log(), "offline") {
		t.Fatalf("the bridge reconnected, not the SDK:\n%s", f.Log())
	}
	// An outage: the socket drops and the SDK's next try to fetch an endpoint loses its
	// connection.
	f.fs.Drop("endpoint", 1)
	f.fs.DropSocket()
	if got := f.WaitLogged("offline", 1); got < 1 {
		t.Fatalf("the failed reconnect was not reported:\n%s", f.Log())
	}
	f.fs.Say(ownerChat, owner, "busy endpoint gone")
	f.waitFor(t, ownerChat, "answered after the outage")
	if users := f.Users(t); users != 3 {
		t.Fatalf("%d user messages taken, want 3", users)
	}
}

// TestRateLimitsAreWaitedOut: a send and a patch answered with Feishu's rate limit (HTTP 429,
// code 99991400, x-ogw-ratelimit-reset) are tried again after the wait, and the answer
// arrives once.
func TestRateLimitsAreWaitedOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := make(chan struct{})
	f.Model.Default(scripted.Reply{Text: "Answered despite it all.", Hold: hold})
	f.fs.RateLimit("send", 1, 1)
	f.fs.RateLimit("patch", 1, 1)
	f.start(t)
	f.fs.Say(ownerChat, owner, "are you there?")
	f.fs.WaitSent(ownerChat, bridgetest.Patience, func(ms []feishutest.Message) bool { return len(ms) == 1 })
	close(hold)
	msgs := f.waitFor(t, ownerChat, "Answered despite it all.")
	if len(msgs) != 1 || msgs[0].Edits == 0 {
		t.Fatalf("the chat = %+v", msgs)
	}
	if n := f.fs.Calls("send"); n != 2 {
		t.Fatalf("send called %d times: the 429 was not retried once", n)
	}
	if n := f.fs.Calls("patch"); n < 2 {
		t.Fatalf("patch called %d times: the 429 was not retried", n)
	}
	if users := f.Users(t); users != 1 {
		t.Fatalf("the message was taken %d times", users)
	}
}

// TestKillMidTurnAndRestartAnswersOnce: Tofu is killed while the answer streams (its first
// words already shown); a new bridge and runner on the same store finish that message: the
// chat ends with one answer, the shown card patched into it, and the message pushed again
// by Feishu is not taken again.
func TestKillMidTurnAndRestartAnswersOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := make(chan struct{})
	f.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{Text: "partial words then more", Hold: hold}).Times(1)
	f.Model.Default(scripted.Reply{Text: "The whole answer."})
	f.start(t)
	ev := f.fs.Say(ownerChat, owner, "tell me everything")
	f.fs.WaitSent(ownerChat, bridgetest.Patience, func(ms []feishutest.Message) bool {
		return len(ms) == 1 && bridgetest.Partial(ms[0].Text)
	})
	f.WaitConversation(t, "feishu", ownerChat, bridgetest.Shown)
	f.Stop() // the kill
	close(hold)
	f.Reopen(t)
	f.start(t)
	f.fs.Wait(bridgetest.Patience, f.fs.Connected)
	f.fs.Redeliver(ev)
	msgs := f.waitFor(t, ownerChat, "The whole answer.")
	if got := answers(msgs); len(got) != 1 || got[0].Text != "The whole answer." {
		t.Fatalf("the chat = %+v\nlog:\n%s", msgs, f.Log())
	}
	if users := f.Users(t); users != 1 {
		t.Fatalf("the message was taken %d times", users)
	}
}

// TestMessagesSentWhileClosedAreAnsweredAtStart: the long connection does not bring what was
// sent while Tofu was closed (the loopback Feishu forgets the events, as Feishu gives up on a
// client that is not there); at the next start the bridge reads the history of the direct
// chats it knows after the last message it handled, and answers the message once (the one
// handled before is not taken again).
func TestMessagesSentWhileClosedAreAnsweredAtStart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.OnUser("first").Reply(scripted.Reply{Text: "answer one"})
	f.Model.OnUser("while closed").Reply(scripted.Reply{Text: "answer two"})
	f.start(t)
	f.fs.Say(ownerChat, owner, "the first message")
	f.waitFor(t, ownerChat, "answer one")
	f.Stop() // Tofu closed
	f.fs.Say(ownerChat, owner, "sent while closed")
	f.fs.Forget()
	f.start(t)
	msgs := f.waitFor(t, ownerChat, "answer two")
	if len(msgs) != 2 || msgs[0].Text != "answer one" {
		t.Fatalf("the chat = %+v\nlog:\n%s", msgs, f.Log())
	}
	if users := f.Users(t); users != 2 {
		t.Fatalf("%d user messages taken, want 2", users)
	}
	// Each connection of the bridge reads the history once; under load the bridge may connect
	// again (a retry after a slow start), which reads it again and answers nothing twice (the
	// checks above).
	if n := f.fs.Calls("history"); n == 0 {
		t.Fatalf("the history was never read (one direct chat known)")
	}
}
