package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
)

// ask puts an approval the turn waits for to the chat: as buttons where the platform has them,
// and as a question answered by a reply "yes" or "no". Only a reply or a press from an allowed
// user, in this chat, after the question, answers it: what the agent reads (a message, a file,
// a page) is never an answer.
func (b *Bridge) ask(ctx context.Context, chat string, a store.Approval) {
	b.mu.Lock()
	r := b.turns[chat]
	if r != nil {
		r.ask = &a
	}
	b.mu.Unlock()
	if r == nil {
		return
	}
	text := fmt.Sprintf("Tofu asks before it runs %s:\n%s", a.Name, a.Subject)
	if a.Reason != "" {
		text += "\n(" + a.Reason + ")"
	}
	text += "\nReply yes to allow it once, no to deny it."
	_, err := b.send(ctx, chat, Outgoing{Text: text, Key: "ask-" + a.CallID + "-" + r.session,
		Buttons: []Button{{Label: "Allow once", Press: "yes", Call: a.CallID}, {Label: "Deny", Press: "no", Call: a.CallID}}})
	if err != nil && ctx.Err() == nil {
		b.o.Logf("%s: ask in %s: %v", b.o.Name, chat, err)
	}
}

// asking is the approval the chat's turn waits for (nil: none).
func (b *Bridge) asking(chat string) *store.Approval {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.turns[chat]; r != nil {
		return r.ask
	}
	return nil
}

// replied answers the open approval with a reply's text: yes or no, nothing else.
func (b *Bridge) replied(ctx context.Context, chat, text string) {
	a := b.asking(chat)
	switch strings.ToLower(strings.Trim(text, " .!\n")) {
	case "yes", "y", "allow":
		b.decide(ctx, chat, a.CallID, true)
	case "no", "n", "deny":
		b.decide(ctx, chat, a.CallID, false)
	default:
		b.say(ctx, chat, "Tofu is waiting for your answer to "+a.Name+": reply yes or no (or /stop).")
	}
}

// pressed answers the open approval with a button, when the button is that approval's.
func (b *Bridge) pressed(ctx context.Context, chat, press, call string) {
	a := b.asking(chat)
	if a == nil || a.CallID != call {
		b.say(ctx, chat, "That question is no longer open.")
		return
	}
	b.decide(ctx, chat, call, press == "yes")
}

// decide answers the approval of call in the chat's turn.
func (b *Bridge) decide(ctx context.Context, chat, call string, yes bool) {
	b.mu.Lock()
	r := b.turns[chat]
	if r == nil || r.ask == nil || r.ask.CallID != call {
		b.mu.Unlock()
		return
	}
	r.ask = nil
	b.mu.Unlock()
	decision := "deny"
	if yes {
		decision = "allow"
	}
	if err := b.o.Runner.Approve(r.session, call, decision); err != nil {
		b.say(ctx, chat, "Tofu could not take the answer: "+err.Error())
	}
}
