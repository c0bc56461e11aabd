package telegram_test

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/telegram/telegramtest"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// answers are the chat's messages that are not approval questions or notes: the answers.
func answers(msgs []telegramtest.Message) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range msgs {
		if !strings.Contains(m.Text, "Reply yes to allow") {
			out = append(out, m)
		}
	}
	return out
}

// TestKillMidTurnAndRestartAnswersOnce: Tofu is killed while the answer streams (its first
// words already shown in the chat); a new bridge and runner on the same store finish that
// message: the chat ends with one answer, the shown message edited into it, and the message is
// not taken again although Telegram delivers it again (its offset was not confirmed).
func TestKillMidTurnAndRestartAnswersOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := make(chan struct{})
	f.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{Text: "partial words then more", Hold: hold}).Times(1)
	f.Model.Default(scripted.Reply{Text: "The whole answer."})
	f.start(t)
	f.tg.Say(owner, owner, "tell me everything")
	f.tg.Wait(ownerChat, bridgetest.Patience, func(ms []telegramtest.Message) bool {
		return len(ms) == 1 && bridgetest.Partial(ms[0].Text)
	})
	// Once the bridge has recorded which message shows the answer (docs/BRIDGES.md: a kill in
	// the instant between Telegram taking the first words and that record can leave them).
	f.WaitConversation(t, "telegram", ownerChat, bridgetest.Shown)
	f.Stop() // the kill: the turn is cut mid-stream, nothing of the process is kept
	close(hold)
	f.Reopen(t) // a restart: the database reopened, a new runner and bridge
	f.start(t)
	msgs := f.waitFor(t, ownerChat, "The whole answer.")
	if got := answers(msgs); len(got) != 1 || got[0].Text != "The whole answer." {
		t.Fatalf("the chat = %+v\nlog:\n%s", msgs, f.Log())
	}
	if users := f.Users(t); users != 1 {
		t.Fatalf("the message was taken %d times", users)
	}
}

// TestKillBeforeAnythingWasShownAndRestart: killed while the model had not said a word, the
// restarted bridge sends the answer as one message.
func TestKillBeforeAnythingWasShownAndRestart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{bridgetest.WriteCall("c.txt", "c")}}).Times(1)
	f.Model.Default(scripted.Reply{Text: "Wrote c.txt."})
	f.start(t)
	f.tg.Say(owner, owner, "write c.txt")
	f.waitFor(t, ownerChat, "Reply yes to allow it once") // the turn waits for the approval
	f.Stop()
	f.start(t)
	// The restarted turn asks again (the first approval died with the process): answer it.
	msgs := f.tg.Wait(ownerChat, bridgetest.Patience, func(ms []telegramtest.Message) bool { return len(ms) == 2 })
	if len(msgs) != 2 || !strings.Contains(msgs[1].Text, "Reply yes") {
		t.Fatalf("the chat = %+v\nlog:\n%s", msgs, f.Log())
	}
	f.tg.Say(owner, owner, "yes")
	msgs = f.waitFor(t, ownerChat, "Wrote c.txt.")
	if got := answers(msgs); len(got) != 1 {
		t.Fatalf("the chat = %+v", msgs)
	}
}

// TestCommandsStopNewStatus: /status says what runs, /stop interrupts it (the answer says it
// stopped), /new starts another session for the next message.
func TestCommandsStopNewStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	f.Model.OnUser("long task").Reply(scripted.Reply{Text: "working on it", Hold: hold})
	f.Model.Default(scripted.Reply{Text: "short answer"})
	f.start(t)
	f.tg.Say(owner, owner, "a long task")
	f.tg.Wait(ownerChat, bridgetest.Patience, func(ms []telegramtest.Message) bool { return len(ms) == 1 })
	f.tg.Say(owner, owner, "/status")
	f.waitFor(t, ownerChat, "Running for")
	f.tg.Say(owner, owner, "another thing")
	f.waitFor(t, ownerChat, "still answering")
	f.tg.Say(owner, owner, "/stop")
	// The streamed message is edited into the stopped answer.
	msgs := f.tg.Wait(ownerChat, bridgetest.Patience, func(ms []telegramtest.Message) bool { return strings.HasSuffix(ms[0].Text, "(stopped)") })
	if !strings.HasPrefix(msgs[0].Text, "working") || !strings.HasSuffix(msgs[0].Text, "(stopped)") {
		t.Fatalf("the stopped answer is not the streamed message edited: %+v", msgs)
	}
	f.tg.Say(owner, owner, "/new")
	f.waitFor(t, ownerChat, "New conversation")
	f.tg.Say(owner, owner, "a short one")
	f.waitFor(t, ownerChat, "short answer")
	sessions, _ := f.Store.Sessions()
	if len(sessions) != 2 {
		t.Fatalf("%d sessions after /new, want 2", len(sessions))
	}
	f.tg.Say(owner, owner, "/frobnicate")
	f.waitFor(t, ownerChat, "Unknown command /frobnicate")
}

// TestReconnectsAndWaitsOutRateLimits: polls that lose their connection are retried with
// backoff (the log says the bridge was offline), a 429 on getUpdates and on sendMessage is
// waited out for its retry_after, and the message is answered once.
func TestReconnectsAndWaitsOutRateLimits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Model.Default(scripted.Reply{Text: "Answered despite it all."})
	f.tg.Drop("getUpdates", 2)
	f.tg.RateLimit("getUpdates", 1, 1)
	f.tg.RateLimit("sendMessage", 1, 1)
	f.tg.Say(owner, owner, "are you there?") // sent while Tofu could not reach Telegram
	f.start(t)
	msgs := f.waitFor(t, ownerChat, "Answered despite it all.")
	if len(msgs) != 1 {
		t.Fatalf("the chat = %+v", msgs)
	}
	if !strings.Contains(f.Log(), "offline") {
		t.Fatalf("the lost polls were not reported:\n%s", f.Log())
	}
	if n := f.tg.Calls("sendMessage"); n < 2 {
		t.Fatalf("sendMessage called %d times: the 429 was not retried", n)
	}
	if users := f.Users(t); users != 1 {
		t.Fatalf("the message was taken %d times", users)
	}
}
