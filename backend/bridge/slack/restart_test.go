package slack_test

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/slack/slacktest"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// answers are the chat's messages that are not approval questions: the answers.
func answers(msgs []slacktest.Message) []slacktest.Message {
	var out []slacktest.Message
	for _, m := range msgs {
		if !strings.Contains(m.Text, questionText) {
			out = append(out, m)
		}
	}
	return out
}

// streaming waits until the chat shows the first words of an answer (one message ending in
// " …") and the bridge has recorded which message that is.
func (f *fixture) streaming(t *testing.T, chat string) {
	t.Helper()
	f.sl.Wait(chat, bridgetest.Patience, func(ms []slacktest.Message) bool {
		return len(ms) == 1 && bridgetest.Partial(ms[0].Text)
	})
	f.WaitConversation(t, "slack", chat, bridgetest.Shown)
}

// TestKillMidTurnAndRestartAnswersOnce: Tofu is killed while the answer streams (its first
// words shown); a new bridge and runner on the same store (and a new socket) finish that
// message: the chat ends with one answer, the shown message edited into it.
func TestKillMidTurnAndRestartAnswersOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := make(chan struct{})
	f.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{Text: "partial words then more", Hold: hold}).Times(1)
	f.Model.Default(scripted.Reply{Text: "The whole answer."})
	f.start(t)
	f.sl.Say(ownerDM, owner, "tell me everything")
	f.streaming(t, ownerDM)
	f.Stop() // the kill: the turn is cut mid-stream, nothing of the process is kept
	close(hold)
	f.Reopen(t)
	f.start(t)
	msgs := f.waitFor(t, ownerDM, "The whole answer.")
	if got := answers(msgs); len(got) != 1 || got[0].Text != "The whole answer." {
		t.Fatalf("the chat = %+v\nlog:\n%s", msgs, f.Log())
	}
	if users := f.Users(t); users != 1 {
		t.Fatalf("the message was taken %d times", users)
	}
	if f.sl.Opens() < 2 {
		t.Fatalf("%d sockets opened: the restart did not connect again", f.sl.Opens())
	}
}

// TestReconnectsAfterDisconnectAndADroppedSocket: Slack's disconnect envelope
// (refresh_requested) and a socket cut without a word each make the SDK open a new socket
// (apps.connections.open again); the messages after each, one of them sent while no socket was
// open and delivered on the next, are answered once.
func TestReconnectsAfterDisconnectAndADroppedSocket(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.answer("one", "answer one", "two", "answer two", "three", "answer three")
	f.start(t)
	f.sl.Say(ownerDM, owner, "message one")
	f.waitFor(t, ownerDM, "answer one")
	f.sl.Disconnect("refresh_requested")
	if !f.sl.Until(bridgetest.Patience, func() bool { return f.sl.Opens() == 2 }) {
		t.Fatalf("no new socket after the disconnect envelope (%d opened)\nlog:\n%s", f.sl.Opens(), f.Log())
	}
	f.sl.Say(ownerDM, owner, "message two")
	f.waitFor(t, ownerDM, "answer two")
	f.sl.DropSocket()
	f.sl.Say(ownerDM, owner, "message three")
	f.waitFor(t, ownerDM, "answer three")
	if n := f.sl.Opens(); n != 3 {
		t.Fatalf("%d sockets opened, want 3", n)
	}
	if n := f.sl.Calls("apps.connections.open"); n != 3 {
		t.Fatalf("apps.connections.open called %d times, want 3", n)
	}
	if got := answers(f.sl.Sent(ownerDM)); len(got) != 3 {
		t.Fatalf("the chat = %+v", got)
	}
	if users := f.Users(t); users != 3 {
		t.Fatalf("%d messages taken, want 3", users)
	}
	f.allAcked(t)
}

// TestOfflineThenRateLimitsAreWaitedOut: apps.connections.open losing its connection makes the
// bridge say it is offline and try again; Slack's 429 with Retry-After on chat.postMessage and
// on chat.update is waited out; the answer arrives whole, once.
func TestOfflineThenRateLimitsAreWaitedOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := make(chan struct{})
	f.Model.Default(scripted.Reply{Text: "Answered despite it all.", Hold: hold})
	f.sl.Drop("apps.connections.open", 2)
	f.sl.RateLimit("chat.postMessage", 1, 1)
	f.sl.Say(ownerDM, owner, "are you there?") // sent while Tofu could not reach Slack
	f.start(t)
	f.streaming(t, ownerDM)
	f.sl.RateLimit("chat.update", 1, 1)
	close(hold)
	msgs := f.waitFor(t, ownerDM, "Answered despite it all.")
	if len(msgs) != 1 || msgs[0].Edits == 0 {
		t.Fatalf("the chat = %+v", msgs)
	}
	if !strings.Contains(f.Log(), "offline") {
		t.Fatalf("the failed connections were not reported:\n%s", f.Log())
	}
	if n := f.sl.Calls("chat.postMessage"); n < 2 {
		t.Fatalf("chat.postMessage called %d times: the 429 was not retried", n)
	}
	if n := f.sl.Calls("chat.update"); n < 2 {
		t.Fatalf("chat.update called %d times: the 429 was not retried", n)
	}
	if users := f.Users(t); users != 1 {
		t.Fatalf("the message was taken %d times", users)
	}
}

// TestMessagesSentWhileClosedAreAnsweredAtStart: Socket Mode does not replay what was sent
// while Tofu was closed (the loopback Slack forgets the envelopes it could not deliver); at the
// next start the bridge reads the history of the conversations it knows (a direct message and
// a channel thread) after the last message it handled, and answers each message once; a
// channel the bot was removed from meanwhile is skipped.
func TestMessagesSentWhileClosedAreAnsweredAtStart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.answer("first", "answer one", "thread question", "answer thread",
		"direct, while", "answer two", "in the thread, while", "answer three")
	f.start(t)
	f.sl.Say(ownerDM, owner, "the first message")
	f.waitFor(t, ownerDM, "answer one")
	thread := channel + ":" + f.sl.Say(channel, owner, "a thread question")
	f.waitFor(t, thread, "answer thread")
	gone := "C0RANDOM:" + f.sl.Say("C0RANDOM", owner, "a thread question elsewhere")
	f.waitFor(t, gone, "answer thread")
	for _, chat := range []string{ownerDM, thread, gone} {
		f.WaitConversation(t, "slack", chat, bridgetest.Settled)
	}
	f.Stop() // Tofu closed
	f.sl.Say(ownerDM, owner, "direct, while Tofu was closed")
	f.sl.Say(thread, owner, "in the thread, while Tofu was closed")
	f.sl.Kick("C0RANDOM") // its history is refused now: the others are read all the same
	f.sl.Forget()
	f.start(t)
	f.waitFor(t, ownerDM, "answer two")
	f.waitFor(t, thread, "answer three")
	if got := answers(f.sl.Sent(ownerDM)); len(got) != 2 {
		t.Fatalf("the direct messages = %+v", got)
	}
	if got := answers(f.sl.Sent(thread)); len(got) != 2 {
		t.Fatalf("the thread = %+v", got)
	}
	if users := f.Users(t); users != 5 {
		t.Fatalf("%d messages taken, want 5", users)
	}
	if f.sl.Calls("conversations.history") == 0 || f.sl.Calls("conversations.replies") == 0 {
		t.Fatal("the history was not read")
	}
}
