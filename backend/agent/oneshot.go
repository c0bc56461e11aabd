package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/store"
)

// OneShotLog is what a one-shot call needs of the store: the agent's log, and a session
// created with its first events.
type OneShotLog interface {
	Log
	CreateSessionWith(title string, setup func(*store.SessionInfo), entries ...store.Entry) (store.SessionInfo, []store.Event, error)
}

// OneShot makes one-shot logged model calls (backend/oneshot) with the provider of the
// moment: the one way My Day, a paper's translation and a scheduled watch ask a model.
type OneShot struct {
	Log      OneShotLog
	Provider func() (llm.Provider, error)
	Price    func(model string, u llm.Usage) float64 // nil: free
}

// Call asks c's question as a turn without tools and returns the reply's text.
func (o OneShot) Call(ctx context.Context, c oneshot.Call) (oneshot.Reply, error) {
	out := oneshot.Reply{Session: c.Session}
	provider, err := o.Provider()
	if err != nil {
		return out, err
	}
	question := store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: c.Text}}
	if c.Session == "" {
		info, _, err := o.Log.CreateSessionWith(c.Title, func(i *store.SessionInfo) { i.Purpose = c.Purpose }, question)
		if err != nil {
			return out, err
		}
		out.Session = info.ID
	} else if _, err := o.Log.AppendBatch(c.Session, question); err != nil {
		return out, fmt.Errorf("log the question: %w", err)
	}
	j, err := OpenJournal(o.Log, out.Session)
	if err != nil {
		return out, err
	}
	var reply replyText
	turn := Turn{Session: out.Session, Journal: j, Model: c.Model, Price: o.Price, Sink: &reply, System: c.System}
	if c.Alone {
		turn.Augment = func(msgs []llm.Message) ([]llm.Message, error) { return msgs[len(msgs)-1:], nil }
	}
	end := (&Agent{Log: o.Log, Provider: provider}).Run(ctx, turn)
	switch {
	case ctx.Err() != nil:
		return out, context.Cause(ctx)
	case end.Reason != store.EndDone && end.Err != nil:
		return out, end.Err
	case end.Reason != store.EndDone:
		return out, fmt.Errorf("the call ended: %s", end.Reason)
	}
	out.Text = reply.String()
	return out, nil
}

// replyText collects the text of a reply as it streams; a retried call starts it again (the
// voided attempt is not glued to the new one).
type replyText struct{ strings.Builder }

func (r *replyText) Delta(text, _ string) { r.WriteString(text) }
func (r *replyText) Reset(string)         { r.Builder.Reset() }
