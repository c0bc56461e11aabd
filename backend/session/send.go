package session

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// Message is what the user (or a program on their behalf) says to start a turn: in a new
// session or an existing one. Runner.Send is the one way in for the window, `tofu chat`,
// `tofu run`, MCP run_task, the scheduler and the evals.
type Message struct {
	// Session is the session the message goes into; "" creates one, holding the message (and
	// the startup fallback) from its first write, so a kill leaves no empty session.
	Session string
	// Title names a new session, or an untitled one ("": TitleFrom(Text)).
	Title       string
	Text        string // "" in an existing session: no message, the turn goes on from the log
	Attachments []store.Attachment
	// Setup sets up the session before its turn (workspace, mode, purpose, …).
	Setup func(*store.SessionInfo)
	// Then are events written with the message, after it (the scheduler's command call).
	Then []store.Entry
	// Written, when set, is called with the session and the events just written, once they
	// are durable and before the turn starts (the terminal prints them and follows the rest);
	// it may complete the turn's request with what needs the session (the window's stream).
	Written func(session string, written []store.Event, req *Request)
}

// Sent is a message sent: its session, the model that answers and the turn running.
type Sent struct {
	Session string
	Model   string
	Turn    *Turn
}

// Send writes m into its session and starts the turn req describes (req.Session and
// req.Model are set here; Turn.Wait runs it to its end). The model is req.Model, or the
// settings' main model, or its startup replacement (Options.Switched): a session that sends
// with the replacement gets the fallback event once per run of the runner, before the message.
// A turn that cannot start is recorded under the message as an error event and returned.
// Attachments the model cannot take (an image for a model without vision) are refused first,
// before anything is written (CheckAttachments).
func (r *Runner) Send(ctx context.Context, m Message, req Request) (Sent, error) {
	model, switched := r.Choose(req.Model)
	if err := r.CheckAttachments(ctx, model, m.Attachments); err != nil {
		return Sent{Session: m.Session}, err // nothing written: the sender keeps the message
	}
	var entries []store.Entry
	if switched != nil && r.noteSwitch(m.Session) {
		entries = append(entries, store.Entry{Type: store.EventFallback, Payload: *switched})
	}
	if m.Text != "" {
		entries = append(entries, store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: m.Text, Attachments: m.Attachments}})
	}
	entries = append(entries, m.Then...)
	setup := func(i *store.SessionInfo) {
		if i.Title == store.DefaultTitle || i.Title == "" {
			i.Title = cmp.Or(m.Title, TitleFrom(m.Text))
		}
		if m.Setup != nil {
			m.Setup(i)
		}
	}
	sid := m.Session
	var written []store.Event
	if sid == "" {
		if m.Text == "" {
			return Sent{}, errors.New("the message is empty")
		}
		info, evs, err := r.o.Store.CreateSessionWith(cmp.Or(m.Title, TitleFrom(m.Text)), setup, entries...)
		if err != nil {
			return Sent{}, err
		}
		sid, written = info.ID, evs
		if switched != nil {
			r.noteSwitch(sid)
		}
	} else {
		if r.Busy(sid) {
			return Sent{Session: sid}, ErrBusy
		}
		// The title first, so the session list announced with the user event carries it.
		if _, err := r.o.Store.UpdateSession(sid, setup); err != nil {
			return Sent{Session: sid}, err
		}
		if len(entries) > 0 {
			evs, err := r.o.Store.AppendBatch(sid, entries...)
			if err != nil {
				return Sent{Session: sid}, err
			}
			written = evs
		}
	}
	req.Session, req.Model = sid, model
	if m.Written != nil {
		m.Written(sid, written, &req)
	}
	t, err := r.Start(ctx, req)
	if err != nil {
		// The message is in the log: the turn that could not start is too, so the transcript
		// shows the error under it (with Retry) instead of an orphaned message.
		r.recordFailure(sid, model, err)
		return Sent{Session: sid, Model: model}, err
	}
	return Sent{Session: sid, Model: model, Turn: t}, nil
}

// Choose is the model a turn asking for model runs with ("": the settings' main model, or
// its startup replacement) and the replacement when that is what runs (nil otherwise).
func (r *Runner) Choose(model string) (string, *store.Fallback) {
	var sw *store.Fallback
	if r.o.Switched != nil {
		sw = r.o.Switched()
	}
	if model == "" {
		if sw != nil {
			return sw.Model, sw
		}
		return r.modelOf(Request{}), nil
	}
	if sw != nil && sw.Model == model {
		return model, sw
	}
	return model, nil
}

// noteSwitch says whether session (a new one: "") is yet to record the startup fallback, and
// notes that it has.
func (r *Runner) noteSwitch(session string) bool {
	if session == "" {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.switchNoted[session] {
		return false
	}
	r.switchNoted[session] = true
	return true
}

// recordFailure appends the reason a turn could not start (no model picked, no provider) as
// an error event. A busy session is not a failure of the message.
func (r *Runner) recordFailure(sid, model string, err error) {
	if errors.Is(err, ErrBusy) {
		return
	}
	info := store.ErrorInfo{Kind: llm.ErrServer, Message: err.Error(), Model: model, Retryable: true,
		Hint: "Check the provider in Settings, then Retry."}
	if model == "" {
		info.Kind, info.Hint = llm.ErrModelNotFound, "Pick a model in the model picker, then Retry."
	}
	var e *llm.Error
	if errors.As(err, &e) {
		info.Kind, info.Provider = e.Kind, e.Provider
		if e.Hint != "" {
			info.Hint = e.Hint
		}
	}
	_, _ = r.o.Store.Append(sid, store.EventError, info) // the caller reports err either way
}

// TitleFrom makes a conversation title from its first message: the first line, at most 48
// characters (never cut inside one), cut at a word boundary.
func TitleFrom(text string) string {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(text), "\n", 2)[0])
	line = strings.Join(strings.Fields(line), " ")
	const max = 48
	if utf8.RuneCountInString(line) <= max {
		return line
	}
	cut := string([]rune(line)[:max])
	if i := strings.LastIndexByte(cut, ' '); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
