package bridge

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// command runs a chat command; false when there is no such command.
func (b *Bridge) command(ctx context.Context, conv *Conversation, text string) bool {
	switch strings.ToLower(strings.Fields(text)[0]) {
	case "/stop":
		if !b.busy(conv.Chat) {
			b.say(ctx, conv.Chat, "Nothing is running.")
			return true
		}
		b.o.Runner.Stop(conv.Session) // the turn's end answers "(stopped)"
	case "/new":
		if b.busy(conv.Chat) {
			b.say(ctx, conv.Chat, "Tofu is still answering: /stop it first.")
			return true
		}
		if err := b.update(conv.Chat, func(c *Conversation) { c.Session = "" }); err != nil {
			b.say(ctx, conv.Chat, "Tofu could not start a new conversation: "+err.Error())
			return true
		}
		b.say(ctx, conv.Chat, "New conversation: your next message starts it.")
	case "/status":
		b.say(ctx, conv.Chat, b.status(*conv))
	case "/file":
		if note := b.sendFile(ctx, *conv, strings.TrimSpace(text[len("/file"):])); note != "" {
			b.say(ctx, conv.Chat, note)
		}
	default:
		return false
	}
	return true
}

// status says what the conversation is doing.
func (b *Bridge) status(conv Conversation) string {
	var sb strings.Builder
	if conv.Session == "" {
		sb.WriteString("No conversation yet: your next message starts one.")
	} else if info, err := b.o.Store.Session(conv.Session); err == nil {
		fmt.Fprintf(&sb, "Conversation: %s (%d events).", info.Title, info.Events)
	}
	fmt.Fprintf(&sb, "\nWorkspace: %s\nApprovals: %s", conv.Workspace, conv.Approve)
	b.mu.Lock()
	r := b.turns[conv.Chat]
	var started time.Time
	var asking string
	if r != nil {
		started = r.started
		if r.ask != nil {
			asking = r.ask.Name + ": " + r.ask.Subject
		}
	}
	b.mu.Unlock()
	switch {
	case r == nil:
		sb.WriteString("\nNothing is running.")
	case asking != "":
		fmt.Fprintf(&sb, "\nRunning for %s, waiting for your yes or no to %s", time.Since(started).Round(time.Second), asking)
	default:
		fmt.Fprintf(&sb, "\nRunning for %s.", time.Since(started).Round(time.Second))
	}
	return sb.String()
}
