package app

import (
	"errors"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// The Enhance menu's thinking level: kept on the session, sent with its requests, refused
// while a turn runs and for an unknown level.
func TestSetThinking(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.app.Sessions.Create("")
	if err := f.app.Sessions.SetThinking(info.ID, "max"); err == nil {
		t.Fatal("SetThinking accepted an unknown level")
	}
	if err := f.app.Sessions.SetThinking(info.ID, "high"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.store.Session(info.ID); got.Thinking != "high" {
		t.Fatalf("thinking = %q, want high", got.Thinking)
	}
	if err := f.app.Chat.Send(info.ID, "hello", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "end of the reply", f.rec.ended(info.ID))
	chats := f.model.Chats()
	if c := chats[len(chats)-1]; c.Think == nil || !*c.Think {
		t.Fatalf("the request's think = %v, want true (the settings say off)", c.Think)
	}

	if err := f.app.Chat.Send(info.ID, "tell me something long", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.rec.waitFor(t, "some streamed text", func() bool {
		for _, m := range f.rec.sessionMsgs(info.ID) {
			if m.Kind == "delta" && len(f.model.Chats()) == len(chats)+1 {
				return true
			}
		}
		return false
	})
	if err := f.app.Sessions.SetThinking(info.ID, "off"); !errors.Is(err, ErrBusy) {
		t.Fatalf("SetThinking while a turn runs: %v, want ErrBusy", err)
	}
	f.app.Chat.Stop(info.ID)
	if got, _ := f.store.Session(info.ID); got.Thinking != "high" {
		t.Fatalf("thinking changed while busy: %q", got.Thinking)
	}
}
