package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// begin takes a message as the user's next one: recorded as pending with the message id
// (durable before the session sees it), then sent into the conversation's session (a new one
// the first time) and answered by a turn.
func (b *Bridge) begin(ctx context.Context, conv Conversation, m Incoming) error {
	atts, problems := b.take(ctx, conv, m.Files)
	if len(problems) > 0 {
		b.say(ctx, m.Chat, "Not attached: "+strings.Join(problems, "; ")+".")
	}
	if strings.TrimSpace(m.Text) == "" {
		if len(atts) == 0 {
			return b.update(m.Chat, func(c *Conversation) { c.markHandled(m.ID) })
		}
		m.Text = filesText(atts)
	}
	p := &Pending{Message: m.ID, Text: m.Text, Attachments: atts}
	if conv.Session != "" {
		info, err := b.o.Store.Session(conv.Session)
		if err != nil {
			return fmt.Errorf("the conversation's session: %w", err)
		}
		p.Before = info.Events
	} else if err := os.MkdirAll(conv.Workspace, 0o755); err != nil {
		return fmt.Errorf("the conversation's workspace: %w", err)
	}
	conv.Pending = p
	conv.markHandled(m.ID)
	if err := b.update(conv.Chat, func(c *Conversation) { *c = conv }); err != nil {
		return err
	}
	return b.startTurn(ctx, conv, m.Text)
}

// setup makes a new session a bridge conversation: in its workspace, marked with the
// platform, with the web, browser and desktop off unless the bridge turns them on. A session
// set up before keeps what the user changed since.
func (b *Bridge) setup(conv Conversation) func(*store.SessionInfo) {
	return func(i *store.SessionInfo) {
		if i.Bridge != "" {
			return
		}
		i.Workspace, i.Bridge = conv.Workspace, b.o.Platform.Name()
		for _, f := range offByDefault {
			if !slices.Contains(b.o.ToolsOn, f) && !slices.Contains(i.ToolsOff, f) {
				i.ToolsOff = append(i.ToolsOff, f)
			}
		}
	}
}

// appended says whether the pending message is in the session (a run that died after
// sending it); it records where.
func (b *Bridge) appended(conv *Conversation) bool {
	p := conv.Pending
	if conv.Session == "" {
		return false
	}
	if p.Seq != 0 {
		return true
	}
	ev, err := b.o.Store.EventAt(conv.Session, p.Before+1)
	var u store.UserMessage
	if err != nil || ev.Type != store.EventUser || ev.Decode(&u) != nil || u.Text != p.Text {
		return false
	}
	p.Seq = ev.Seq
	return b.update(conv.Chat, func(c *Conversation) { c.Pending = p }) == nil
}

// startTurn sends text (none: the turn goes on from the log) into the conversation's session
// through the runner, the one way turns start, and runs the turn answering the pending message.
func (b *Bridge) startTurn(ctx context.Context, conv Conversation, text string) error {
	b.mu.Lock()
	runCtx := b.ctx
	b.mu.Unlock()
	r := &running{session: conv.Session, started: time.Now()}
	r.reply = newReply(b, conv.Chat, conv.Pending.Message, conv.Pending.Reply)
	msg := session.Message{Session: conv.Session, Text: text, Setup: b.setup(conv),
		Attachments: conv.Pending.attachments(text),
		Written:     func(sid string, evs []store.Event, _ *session.Request) { b.written(conv, r, sid, evs) }}
	req := session.Request{
		Model: b.o.Model, Approve: conv.Approve, Sink: r.reply,
		Prompt: func(a store.Approval) { b.ask(runCtx, conv.Chat, a) },
		Ended:  func(end agent.End) { b.finish(runCtx, conv.Chat, end) },
	}
	b.mu.Lock()
	b.turns[conv.Chat] = r
	b.mu.Unlock()
	sent, err := b.o.Runner.Send(runCtx, msg, req)
	if err != nil {
		b.mu.Lock()
		delete(b.turns, conv.Chat)
		b.mu.Unlock()
		// Nothing will run: the message is answered with why, and is not pending any more.
		return b.deliverAnswer(ctx, conv.Chat, "Tofu could not answer: "+err.Error())
	}
	b.mu.Lock()
	r.turn = sent.Turn
	b.mu.Unlock()
	go r.reply.pace(runCtx, sent.Turn.Done())
	return nil
}

// written records where the message went, once it is durable and before its turn runs: the
// session (a new one's id) and the user event.
func (b *Bridge) written(conv Conversation, r *running, sid string, evs []store.Event) {
	var seq uint64
	for _, ev := range evs {
		if ev.Type == store.EventUser {
			seq = ev.Seq
		}
	}
	b.mu.Lock()
	r.session = sid
	b.mu.Unlock()
	err := b.update(conv.Chat, func(c *Conversation) {
		c.Session = sid
		if c.Pending != nil && c.Pending.Message == conv.Pending.Message && seq != 0 {
			c.Pending.Seq = seq
		}
	})
	if err != nil {
		b.o.Logf("%s: record the message of %s: %v", b.o.Name, conv.Chat, err)
	}
}

// finish delivers a turn's answer, unless the bridge itself is closing: then the message
// stays pending and the next run answers it.
func (b *Bridge) finish(ctx context.Context, chat string, end agent.End) {
	b.mu.Lock()
	r := b.turns[chat]
	delete(b.turns, chat)
	b.mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	conv, _, err := b.rec.conversation(chat)
	if err != nil || conv.Pending == nil {
		return
	}
	text := b.answerText(conv.Session, conv.Pending.Seq, end)
	if r != nil {
		r.reply.stop()
	}
	if err := b.deliverAnswer(ctx, chat, text); err != nil {
		b.o.Logf("%s: deliver the answer in %s: %v", b.o.Name, chat, err)
	}
}

// answerText is what the chat reads of a turn: the model's last words since the message,
// and why the turn stopped when it did not finish.
func (b *Bridge) answerText(sessionID string, since uint64, end agent.End) string {
	evs, err := b.o.Store.EventsFrom(sessionID, since)
	var text string
	if err == nil {
		for _, ev := range evs {
			var a store.AssistantMessage
			if ev.Type == store.EventAssistant && ev.Decode(&a) == nil && a.Text != "" {
				text = a.Text
			}
		}
	}
	note := ""
	switch {
	case end.Reason == store.EndDone:
	case end.Reason == store.EndInterrupted:
		note = "(stopped)"
	case end.Err != nil:
		note = fmt.Sprintf("(the turn stopped: %s: %v)", end.Reason, end.Err)
	default:
		note = fmt.Sprintf("(the turn stopped: %s)", end.Reason)
	}
	switch {
	case text == "" && note == "":
		return "(no answer)"
	case text == "":
		return note
	case note == "":
		return text
	}
	return text + "\n\n" + note
}

// deliverAnswer sends (or edits in) the pending message's answer and clears it: the one
// place a pending message stops being pending.
func (b *Bridge) deliverAnswer(ctx context.Context, chat, text string) error {
	conv, _, err := b.rec.conversation(chat)
	if err != nil || conv.Pending == nil {
		return err
	}
	p := conv.Pending
	sent := false
	if p.Reply != "" {
		err := patiently(ctx, func() error { return b.o.Platform.Edit(ctx, chat, p.Reply, text) })
		sent = err == nil
		if err != nil && !errors.Is(err, ErrNoEdit) {
			return err
		}
	}
	if !sent {
		if _, err := b.send(ctx, chat, Outgoing{Text: text, Key: "answer-" + p.Message}); err != nil {
			return err
		}
	}
	// Only Pending changes: a /new handled meanwhile stays.
	return b.update(chat, func(c *Conversation) {
		if c.Pending != nil && c.Pending.Message == p.Message {
			c.Pending = nil
		}
	})
}

// resume finishes what a previous run left: each pending message is answered, by the turn
// its log already ended with, or by running the turn on (sent again when it never reached
// the session).
func (b *Bridge) resume(ctx context.Context) error {
	convs, err := b.rec.conversations()
	if err != nil {
		return err
	}
	for _, conv := range convs {
		if conv.Pending == nil {
			continue
		}
		text := ""
		if !b.appended(&conv) {
			text = conv.Pending.Text
		} else if end, ok := b.endedSince(conv.Session, conv.Pending.Seq); ok {
			if err := b.deliverAnswer(ctx, conv.Chat, b.answerText(conv.Session, conv.Pending.Seq, end)); err != nil {
				return err
			}
			continue
		}
		if err := b.startTurn(ctx, conv, text); err != nil {
			return err
		}
	}
	return nil
}

// endedSince says how the turn answering the user event seq ended, when its log says it ended
// other than by Tofu closing (a turn cut by a shutdown is run on).
func (b *Bridge) endedSince(sessionID string, seq uint64) (agent.End, bool) {
	evs, err := b.o.Store.EventsFrom(sessionID, seq+1)
	if err != nil || len(evs) == 0 {
		return agent.End{}, false
	}
	last := evs[len(evs)-1]
	var te store.TurnEnd
	if last.Type != store.EventTurnEnd || last.Decode(&te) != nil || te.Reason == store.EndInterrupted {
		return agent.End{}, false
	}
	return agent.End{Reason: te.Reason, Steps: te.Steps}, true
}
