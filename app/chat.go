package app

import (
	"context"
	"errors"
	"strings"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/stream"
	"github.com/tofu-research/tofu/backend/tools/checkpoint"
)

// ErrBusy means a reply is already streaming in the session.
var ErrBusy = session.ErrBusy

// ChatService sends messages and streams replies. Turns are the runner's; this service says
// what the user asked for and shows what happens.
type ChatService struct {
	store  *store.Store
	runner *session.Runner
	emit   Emitter
}

// Send appends the user's message (durably) and starts the reply in the background.
func (c *ChatService) Send(sessionID, text, model string) error {
	return c.SendAttached(sessionID, text, model, nil)
}

// SendAttached is Send with context attached to the message (MCP resources the composer read
// with MCPService.ReadResource): the model reads them after the text, the transcript shows
// them as chips. A message of attachments alone (an image, no words) is sent as it is.
func (c *ChatService) SendAttached(sessionID, text, model string, attachments []store.Attachment) error {
	if strings.TrimSpace(text) == "" && len(attachments) == 0 {
		return errors.New("the message is empty")
	}
	_, err := c.send(context.Background(), session.Message{Session: sessionID, Text: text, Attachments: attachments},
		session.Request{Model: model, Questions: true})
	return err
}

// send writes m and starts its turn (session.Runner.Send), streamed to the window as its own:
// the window's Send, and `tofu chat` or a forwarded `tofu run` through App.Send.
func (c *ChatService) send(ctx context.Context, m session.Message, req session.Request) (session.Sent, error) {
	var sink *stream.Sink
	written := m.Written
	m.Written = func(sid string, evs []store.Event, r *session.Request) {
		if written != nil {
			written(sid, evs, r)
		}
		sink = c.stream(r)
	}
	sent, err := c.runner.Send(ctx, m, req)
	if err != nil && sink != nil {
		sink.Close()
	}
	return sent, err
}

// Retry runs the model again on the log as it is, after an error or an interruption. In a
// session with a workspace it is Continue.
func (c *ChatService) Retry(sessionID, model string) error {
	return c.start(sessionID, model)
}

// Continue runs the agent on the log as it is: tool calls left without a result (a stop, an
// expired approval, a crash) run first, then the model goes on. In a session without a
// workspace it is Retry.
func (c *ChatService) Continue(sessionID, model string) error {
	return c.start(sessionID, model)
}

// Edit records a new version of the user message seq (a branch: the old version stays in
// the log, one < > away) and starts the reply to it.
func (c *ChatService) Edit(sessionID string, seq uint64, text, model string) error {
	if err := c.runner.Edit(sessionID, seq, text); err != nil {
		return err
	}
	return c.start(sessionID, model)
}

// Regenerate asks for another reply to the turn the event seq belongs to (a branch from its
// user message: the old reply stays, one < > away).
func (c *ChatService) Regenerate(sessionID string, seq uint64, model string) error {
	if err := c.runner.Regenerate(sessionID, seq); err != nil {
		return err
	}
	return c.start(sessionID, model)
}

// SwitchBranch shows the branch that starts with event first (an alternative of a fork of
// the conversation), at its latest event; the next message continues it.
func (c *ChatService) SwitchBranch(sessionID string, first uint64) error {
	_, err := c.runner.SwitchBranch(sessionID, first)
	return err
}

// PlanUndo says what "Undo changes since this message" would do for the user message seq:
// each file with its action and diff, or the files that changed since the agent wrote them.
func (c *ChatService) PlanUndo(sessionID string, seq uint64) (checkpoint.Plan, error) {
	return c.runner.PlanUndo(sessionID, seq)
}

// UndoChanges takes the workspace's files back to what they were when the user message seq was
// sent. Nothing is written when a file changed since the agent wrote it: the plan comes back
// with its conflicts (and their diffs) and no error, for the window to show.
func (c *ChatService) UndoChanges(sessionID string, seq uint64) (checkpoint.Plan, error) {
	plan, err := c.runner.UndoChanges(sessionID, seq)
	if errors.Is(err, checkpoint.ErrConflict) {
		return plan, nil
	}
	return plan, err
}

// Stop interrupts the reply streaming in the session, if any. The text received so far is kept.
func (c *ChatService) Stop(sessionID string) error {
	c.runner.Stop(sessionID)
	return nil
}

// Streaming returns the ids of sessions with a reply in flight.
func (c *ChatService) Streaming() []string { return c.runner.Running() }

// Approve answers the approval the session's turn is waiting for on tool call callID:
// "allow" (once), "allow_session", "allow_workspace" (until Tofu closes), "allow_always" (a rule
// for this workspace in the settings), "allow_always_global" (a rule for every workspace) or
// "deny" (permission.Answer).
func (c *ChatService) Approve(sessionID, callID, decision string) error {
	return c.runner.Approve(sessionID, callID, decision)
}

// Answer answers the ask_human question of tool call callID that the session's turn waits for.
func (c *ChatService) Answer(sessionID, callID, text string) error {
	return c.runner.Answer(sessionID, callID, text)
}

// UndoCompaction withdraws a compaction of the session (appends compaction_undo): later
// requests see the raw messages it summarized again. Refused while a turn runs, and for a
// compaction the log does not hold or that is already undone.
func (c *ChatService) UndoCompaction(sessionID, compactionID string) error {
	return c.runner.UndoCompaction(sessionID, compactionID)
}

// start runs a turn of the session, streamed to the window.
func (c *ChatService) start(sessionID, model string) error {
	_, err := c.startTurn(context.Background(), session.Request{Session: sessionID, Model: model, Questions: true})
	return err
}

// startTurn starts the turn req describes on the log as it is (Retry, Continue, Edit, …),
// streamed to the window as its own.
func (c *ChatService) startTurn(ctx context.Context, req session.Request) (*session.Turn, error) {
	sink := c.stream(&req)
	t, err := c.runner.Start(ctx, req)
	if err != nil {
		sink.Close()
	}
	return t, err
}

// stream makes req's turn the window's: "started", deltas (coalesced), "ended" (with the error
// when the turn failed in a way its log cannot show), on the session's topic, which a `tofu
// run` or `tofu chat` forwarded to this Tofu follows too. req's Sink, Started and Ended are
// replaced. Unexported: every exported method of a service is callable from the page.
func (c *ChatService) stream(req *session.Request) *stream.Sink {
	topic := SessionTopic(req.Session)
	sink := stream.NewSink(stream.DeltaInterval, func(text, reasoning string) {
		c.emit.Emit(topic, SessionMessage{Kind: MessageDelta, Text: text, Reasoning: reasoning})
	}, func(reason string) { c.emit.Emit(topic, SessionMessage{Kind: MessageReset, Text: reason}) })
	req.Sink = sink
	req.Started = func() { c.emit.Emit(topic, SessionMessage{Kind: MessageStream, State: StreamStarted}) }
	req.Ended = func(end agent.End) {
		sink.Close()
		msg := SessionMessage{Kind: MessageStream, State: StreamEnded}
		if errors.Is(end.Err, agent.ErrLog) {
			msg.Error = end.Err.Error()
		}
		c.emit.Emit(topic, msg)
	}
	return sink
}

// settle sends the deltas of the session's live view still held by the coalescer before the
// reply they belong to is announced: a delta arriving after its reply would show the text again
// (in an agent turn, as a phantom reply under the tool cards until the next step).
func (c *ChatService) settle(ev store.Event) {
	if ev.Type != store.EventAssistant {
		return
	}
	if sink, ok := c.runner.Sink(ev.Session).(*stream.Sink); ok {
		sink.Drain()
	}
}
