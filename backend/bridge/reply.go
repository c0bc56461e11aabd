package bridge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
)

// Unfinished ends the text of an answer still streaming; its last edit drops it.
const Unfinished = " …"

// reply streams a turn's answer into the chat: the text so far is sent once there is some,
// then edited in place at most every EditEvery (slower when the platform says so), so a chat
// app shows the answer growing without a message per word. The final text is the bridge's
// deliverAnswer, an edit of the same message.
type reply struct {
	b       *Bridge
	chat    string
	message string // the message answered (the key of the first send)

	mu     sync.Mutex
	text   strings.Builder
	shown  string // what the chat shows
	id     string // the reply's message id ("": not sent yet)
	noEdit bool   // the platform cannot edit: the answer is sent whole at the end
	quit   chan struct{}
	done   chan struct{}
}

func newReply(b *Bridge, chat, message, id string) *reply {
	return &reply{b: b, chat: chat, message: message, id: id, quit: make(chan struct{}), done: make(chan struct{})}
}

// Delta is the agent's live text (agent.Sink); reasoning is not sent to the chat.
func (r *reply) Delta(text, _ string) {
	r.mu.Lock()
	r.text.WriteString(text)
	r.mu.Unlock()
}

// Reset drops the text streamed so far: the call is re-run, or a new step starts.
func (r *reply) Reset(string) {
	r.mu.Lock()
	r.text.Reset()
	r.mu.Unlock()
}

// pace edits the reply every EditEvery until the turn ends or stop is called.
func (r *reply) pace(ctx context.Context, turnDone <-chan struct{}) {
	defer close(r.done)
	wait := r.b.o.EditEvery
	for {
		select {
		case <-ctx.Done():
			return
		case <-turnDone:
			return
		case <-r.quit:
			return
		case <-time.After(wait):
		}
		wait = r.b.o.EditEvery
		var limited *RateLimited
		if err := r.show(ctx); errors.As(err, &limited) {
			wait = max(wait, limited.After)
		} else if err != nil && ctx.Err() == nil {
			r.b.o.Logf("%s: stream the reply in %s: %v", r.b.o.Name, r.chat, err)
		}
	}
}

// show sends or edits the reply to the text so far, with a mark that more is coming.
func (r *reply) show(ctx context.Context) error {
	r.mu.Lock()
	text := strings.TrimSpace(r.text.String())
	id, noEdit := r.id, r.noEdit
	r.mu.Unlock()
	if text == "" || noEdit || text == r.shown {
		return nil
	}
	partial := text + Unfinished
	if id == "" {
		sent, err := r.b.o.Platform.Send(ctx, r.chat, Outgoing{Text: partial, Key: "answer-" + r.message})
		if err != nil {
			return err
		}
		// Recorded at once: after a restart the answer is this message's edit, not a second one.
		if err := r.b.update(r.chat, func(c *Conversation) {
			if c.Pending != nil && c.Pending.Message == r.message {
				c.Pending.Reply = sent
			}
		}); err != nil {
			return err
		}
		r.mu.Lock()
		r.id = sent
		r.mu.Unlock()
		r.shown = text
		return nil
	}
	err := r.b.o.Platform.Edit(ctx, r.chat, id, partial)
	if errors.Is(err, ErrNoEdit) {
		r.mu.Lock()
		r.noEdit = true
		r.mu.Unlock()
		return nil
	}
	if err == nil {
		r.shown = text
	}
	return err
}

// stop ends the pacing and waits for an edit in flight.
func (r *reply) stop() {
	select {
	case <-r.quit:
	default:
		close(r.quit)
	}
	<-r.done
}
