package headless

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/models"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// ChatOptions are the inputs of one `tofu chat`. A forwarded chat sends them to the running
// Tofu as they are (backend/forward).
type ChatOptions struct {
	Prompt, Model, Session, BaseURL string
}

// Sender sends a message the window's way (app.App.Send: ChatService's path, so the window
// shows the turn live).
type Sender interface {
	Send(ctx context.Context, m session.Message, req session.Request) (session.Sent, error)
}

// ErrNobodyToAnswer is what ask_human's model reads when the run's input has ended.
var ErrNobodyToAnswer = errors.New("nobody can answer questions in this run (its input has ended, as in tofu run --json without stdin): " +
	"decide yourself and state the assumption you made")

// CheckChat refuses an empty message, and says which model answers (Model).
func CheckChat(o ChatOptions, status func() models.Status) (string, error) {
	if strings.TrimSpace(o.Prompt) == "" {
		return "", errors.New("the message is empty")
	}
	return Model(o.Model, status)
}

// SendChat sends o's message (checked with CheckChat) the window's way (a new conversation
// unless o names one, created holding it; the startup fallback recorded before it). ready is
// called with the conversation, the events it held before the message and the fallback's
// notice, once they are durable and before the reply starts (the terminal follows the
// conversation from there).
func SendChat(s Sender, o ChatOptions, model string, ready func(sid string, before uint64, notice string)) (session.Sent, error) {
	sent, err := s.Send(context.Background(), session.Message{Session: o.Session, Text: o.Prompt,
		Written: func(sid string, evs []store.Event, _ *session.Request) {
			var before uint64
			if len(evs) > 0 {
				before = evs[0].Seq - 1
			}
			ready(sid, before, fallbackNotice(evs))
		}}, session.Request{Model: model, Questions: true})
	if err != nil && o.Session != "" && errors.Is(err, store.ErrNotFound) {
		err = fmt.Errorf("conversation %s: %w", o.Session, err)
	}
	return sent, err
}

// fallbackNotice is what the terminal says of a startup fallback among evs ("" : none).
func fallbackNotice(evs []store.Event) string {
	for _, ev := range evs {
		var f store.Fallback
		if ev.Type == store.EventFallback && ev.Decode(&f) == nil {
			return f.Notice()
		}
	}
	return ""
}

// ChatOutcome says how a reply ended: failure is why, when its log could not say it;
// otherwise an error event written after event before is the outcome.
func ChatOutcome(st *store.Store, sid string, before uint64, failure string) error {
	if failure != "" {
		return errors.New(failure)
	}
	events, err := st.EventsFrom(sid, before+1)
	if err != nil {
		return err
	}
	for _, ev := range events {
		if ev.Type != store.EventError {
			continue
		}
		var e store.ErrorInfo
		if err := ev.Decode(&e); err != nil {
			return err
		}
		return &llm.Error{Kind: llm.ErrorKind(e.Kind), Message: e.Message, Hint: e.Hint}
	}
	return nil
}
