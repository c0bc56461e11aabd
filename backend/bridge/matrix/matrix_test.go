package matrix_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/id"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/bridge/bridgetest"
	"github.com/tofu-research/tofu/backend/bridge/matrix"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestOwnerAndStrangerOnARealHomeserver: on a real Dendrite, the owner's direct room with the
// bot runs a turn whose write asks through the room, answered by the reply "yes", and the
// answer arrives; a stranger's room gets one refusal and reaches nothing. After a kill and a
// restart on the same store, the owner's next message is answered once and the old one is not
// taken again.
func TestOwnerAndStrangerOnARealHomeserver(t *testing.T) {
	hs := dendrite(t)
	ctx := context.Background()
	bot, owner, stranger := account(t, hs, "tofu"), account(t, hs, "alice"), account(t, hs, "mallory")
	tofu := bridgetest.New(t)
	tofu.Model.On(bridgetest.FirstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{bridgetest.WriteCall("a.txt", "hello")}}).Times(1)
	tofu.Model.OnUser("and now?").Reply(scripted.Reply{Text: "Still here."})
	tofu.Model.Default(scripted.Reply{Text: "I wrote a.txt."})
	start := func() {
		p, err := matrix.New(matrix.Options{Homeserver: hs, UserID: string(bot.UserID), Token: bot.AccessToken, PollTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		tofu.Start(t, bridge.Options{Platform: p, Allowed: []string{string(owner.UserID)}})
	}
	start()

	room := directRoom(t, owner, bot.UserID)
	other := directRoom(t, stranger, bot.UserID)
	mine, theirs := watch(t, owner, bot.UserID, room), watch(t, stranger, bot.UserID, other)

	if _, err := owner.SendText(ctx, room, "write hello into a.txt"); err != nil {
		t.Fatal(err)
	}
	mine.waitFor(t, "Reply yes to allow it once", tofu.Log)
	if _, err := owner.SendText(ctx, room, "yes"); err != nil {
		t.Fatal(err)
	}
	msgs := mine.waitFor(t, "I wrote a.txt.", tofu.Log)
	if b, err := os.ReadFile(filepath.Join(tofu.WS, "a.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
	if len(msgs) != 2 || msgs[1] != "I wrote a.txt." {
		t.Fatalf("the owner's room = %q", msgs)
	}

	for _, text := range []string{"hello bot, write me a file", "hello?"} {
		if _, err := stranger.SendText(ctx, other, text); err != nil {
			t.Fatal(err)
		}
	}
	theirs.waitFor(t, "answers only its owner", tofu.Log)
	logged := tofu.WaitLogged("refused a message from "+string(stranger.UserID), 2)
	if refused := theirs.messages(); logged != 2 || len(refused) != 1 {
		t.Fatalf("the stranger's room = %q\nlog:\n%s", theirs.messages(), tofu.Log())
	}

	// A kill and a restart: the next message is answered once, the first is not taken again
	// (the sync position is in the store).
	tofu.Stop()
	tofu.Reopen(t)
	start()
	if _, err := owner.SendText(ctx, room, "and now?"); err != nil {
		t.Fatal(err)
	}
	msgs = mine.waitFor(t, "Still here.", tofu.Log)
	if len(msgs) != 3 {
		t.Fatalf("the owner's room after the restart = %q", msgs)
	}
	if n := tofu.Users(t); n != 2 {
		t.Fatalf("%d user messages in the log, want 2", n)
	}
	for _, c := range tofu.Model.Chats() {
		if strings.Contains(scripted.LastUser(*c.Request), "hello bot") {
			t.Fatal("the stranger's message reached the model")
		}
	}
}

// directRoom is a private room of user's with the bot invited, once the bot has joined it.
func directRoom(t *testing.T, user *mautrix.Client, bot id.UserID) id.RoomID {
	t.Helper()
	resp, err := user.CreateRoom(context.Background(), &mautrix.ReqCreateRoom{Preset: "trusted_private_chat", IsDirect: true, Invite: []id.UserID{bot}})
	if err != nil {
		t.Fatal(err)
	}
	joined(t, user, resp.RoomID, bot)
	return resp.RoomID
}
