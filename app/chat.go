package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
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
	// switched is the main model's replacement the model status found (nil: none): a
	// conversation that sends with it gets a startup fallback event, once per run of the app.
	switched func() *store.Fallback

	mu       sync.Mutex
	recorded map[string]bool // sessions whose replacement is recorded
}

// Send appends the user's message (durably) and starts the reply in the background.
func (c *ChatService) Send(sessionID, text, model string) error {
	return c.SendAttached(sessionID, text, model, nil)
}

// SendAttached is Send with context attached to the message (MCP resources the composer read
// with MCPService.ReadResource): the model reads them after the text, the transcript shows
// them as chips.
func (c *ChatService) SendAttached(sessionID, text, model string, attachments []store.Attachment) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("the message is empty")
	}
	if c.runner.Busy(sessionID) {
		return ErrBusy
	}
	// Title first, so the session list announced with the user event already carries it.
	c.titleIfUntitled(sessionID, text)
	if err := c.recordSwitch(sessionID, model); err != nil {
		return err
	}
	if _, err := c.store.Append(sessionID, store.EventUser, store.UserMessage{Text: text, Attachments: attachments}); err != nil {
		return err
	}
	if err := c.start(sessionID, model); err != nil {
		// The message is in the log: the turn that could not start is too, so the
		// transcript shows the error under it with Retry instead of an orphaned message.
		c.recordFailure(sessionID, model, err)
		return err
	}
	return nil
}

// recordSwitch makes the main model's replacement an event of the conversation that sends with
// the replacing model (the banner says it for the window; the log says it for the session),
// once per session and run of the app. A fallback event just written for it (`tofu chat`
// records its own) is not written again.
func (c *ChatService) recordSwitch(sessionID, model string) error {
	if c.switched == nil {
		return nil
	}
	sw := c.switched()
	if sw == nil || sw.Model != model {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recorded[sessionID] {
		return nil
	}
	if c.recorded == nil {
		c.recorded = map[string]bool{}
	}
	c.recorded[sessionID] = true
	info, err := c.store.Session(sessionID)
	if err != nil {
		return err
	}
	if info.Events > 0 {
		last, err := c.store.EventsFrom(sessionID, info.Events)
		var f store.Fallback
		if err == nil && len(last) == 1 && last[0].Type == store.EventFallback && last[0].Decode(&f) == nil && f == *sw {
			return nil
		}
	}
	_, err = c.store.Append(sessionID, store.EventFallback, *sw)
	return err
}

// recordFailure appends the reason a turn could not start (no model picked, no provider) as
// an error event. A busy session is not a failure of the message.
func (c *ChatService) recordFailure(sessionID, model string, err error) {
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
	_, _ = c.store.Append(sessionID, store.EventError, info) // the caller reports err either way
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

// startTurn starts the turn req describes, streamed to the window as its own: "started",
// deltas (coalesced), "ended" (with the error when the turn failed in a way its log cannot
// show). The window's Send starts its turns here, and so does a `tofu run` forwarded to this
// Tofu (App.StartTurn), which follows the same messages on the session's topic and answers
// approvals through req.Prompt. req's Sink, Started and Ended are the window's and are
// replaced. Unexported: every exported method of a service is callable from the page.
func (c *ChatService) startTurn(ctx context.Context, req session.Request) (*session.Turn, error) {
	topic := SessionTopic(req.Session)
	sink := newStreamSink(c.emit, topic)
	req.Sink = sink
	req.Started = func() { c.emit.Emit(topic, SessionMessage{Kind: MessageStream, State: StreamStarted}) }
	req.Ended = func(end agent.End) {
		sink.close()
		msg := SessionMessage{Kind: MessageStream, State: StreamEnded}
		if errors.Is(end.Err, agent.ErrLog) {
			msg.Error = end.Err.Error()
		}
		c.emit.Emit(topic, msg)
	}
	t, err := c.runner.Start(ctx, req)
	if err != nil {
		sink.close()
	}
	return t, err
}

// settle sends the deltas of the session's live view still held by the coalescer before the
// reply they belong to is announced: a delta arriving after its reply would show the text again
// (in an agent turn, as a phantom reply under the tool cards until the next step).
func (c *ChatService) settle(ev store.Event) {
	if ev.Type != store.EventAssistant {
		return
	}
	if sink, ok := c.runner.Sink(ev.Session).(*streamSink); ok {
		sink.co.drain()
	}
}

func (c *ChatService) titleIfUntitled(sessionID, text string) {
	// A title that could not be saved leaves the default one: the turn runs either way, and a
	// store that cannot write fails the turn's own first append, which is reported.
	_, _ = c.store.UpdateSession(sessionID, func(i *store.SessionInfo) {
		if i.Title == store.DefaultTitle {
			i.Title = TitleFrom(text)
		}
	})
}

// TitleFrom makes a conversation title from its first message: the first line, at most ~48
// characters, cut at a word boundary.
func TitleFrom(text string) string {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(text), "\n", 2)[0])
	line = strings.Join(strings.Fields(line), " ")
	const max = 48
	if utf8.RuneCountInString(line) <= max {
		return line
	}
	r := []rune(line)[:max]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
