package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/store"
)

// ErrBusy means a reply is already streaming in the session.
var ErrBusy = errors.New("a reply is still streaming in this conversation: stop it first")

// ChatService sends messages and streams replies.
type ChatService struct {
	store     *store.Store
	providers *providerCache
	settings  *SettingsService
	emit      Emitter

	mu      sync.Mutex
	running map[string]*turn
	wg      sync.WaitGroup

	// augment, when set, rewrites the request of a turn before it is sent (the paper reader
	// puts the retrieved passages in). It may append events to the session.
	augment func(sessionID, model string, msgs []llm.Message) ([]llm.Message, error)
}

type turn struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

var (
	errStoppedByUser = errors.New("user")
	errShutdown      = errors.New("shutdown")
)

// Send appends the user's message (durably) and starts the reply in the background.
func (c *ChatService) Send(sessionID, text, model string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("the message is empty")
	}
	if c.isRunning(sessionID) {
		return ErrBusy
	}
	// Title first, so the session list announced with the user event already carries it.
	c.titleIfUntitled(sessionID, text)
	if _, err := c.store.Append(sessionID, store.EventUser, store.UserMessage{Text: text}); err != nil {
		return err
	}
	return c.start(sessionID, model)
}

// Retry runs the model again on the log as it is, after an error or an interruption.
func (c *ChatService) Retry(sessionID, model string) error {
	if c.isRunning(sessionID) {
		return ErrBusy
	}
	return c.start(sessionID, model)
}

// Stop interrupts the reply streaming in the session, if any. The text received so far is kept.
func (c *ChatService) Stop(sessionID string) error {
	c.mu.Lock()
	t := c.running[sessionID]
	c.mu.Unlock()
	if t != nil {
		t.cancel(errStoppedByUser)
	}
	return nil
}

// Streaming returns the ids of sessions with a reply in flight.
func (c *ChatService) Streaming() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, 0, len(c.running))
	for id := range c.running {
		ids = append(ids, id)
	}
	return ids
}

// Shutdown interrupts every reply and waits until each has recorded where it stopped.
func (c *ChatService) Shutdown() {
	c.mu.Lock()
	for _, t := range c.running {
		t.cancel(errShutdown)
	}
	c.mu.Unlock()
	c.wg.Wait()
}

func (c *ChatService) stopAndWait(sessionID string) {
	c.mu.Lock()
	t := c.running[sessionID]
	c.mu.Unlock()
	if t != nil {
		t.cancel(errStoppedByUser)
		<-t.done
	}
}

func (c *ChatService) isRunning(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running[id] != nil
}

func (c *ChatService) start(sessionID, model string) error {
	events, err := c.store.Events(sessionID)
	if err != nil {
		return err
	}
	if model == "" {
		set, _ := c.settings.Get()
		model = set.Models.Main
	}
	if model == "" {
		return errors.New("no model is selected: pick one in the model picker")
	}
	msgs := Messages(events)
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleUser {
		return errors.New("there is no message to answer")
	}
	c.store.UpdateSession(sessionID, func(i *store.SessionInfo) { i.Model = model })

	ctx, cancel := context.WithCancelCause(context.Background())
	t := &turn{cancel: cancel, done: make(chan struct{})}
	c.mu.Lock()
	if c.running[sessionID] != nil {
		c.mu.Unlock()
		cancel(nil)
		return ErrBusy
	}
	c.running[sessionID] = t
	c.wg.Add(1)
	c.mu.Unlock()

	provider, err := c.providers.get()
	if err != nil {
		c.mu.Lock()
		delete(c.running, sessionID)
		c.wg.Done()
		c.mu.Unlock()
		cancel(nil)
		return err
	}
	req := llm.Request{
		Model:    model,
		Messages: append([]llm.Message{{Role: llm.RoleSystem, Content: assets.Prompt("chat")}}, msgs...),
	}
	if c.augment != nil {
		if req.Messages, err = c.augment(sessionID, model, req.Messages); err != nil {
			c.mu.Lock()
			delete(c.running, sessionID)
			c.wg.Done()
			c.mu.Unlock()
			cancel(nil)
			return err
		}
	}
	go func() {
		defer c.wg.Done()
		defer close(t.done)
		defer cancel(nil)
		c.emit.Emit(SessionTopic(sessionID), SessionMessage{Kind: "stream", State: "started"})
		c.stream(ctx, sessionID, provider, req)
		c.mu.Lock()
		delete(c.running, sessionID)
		c.mu.Unlock()
		c.emit.Emit(SessionTopic(sessionID), SessionMessage{Kind: "stream", State: "ended"})
	}()
	return nil
}

// stream runs one model call and records its outcome in the log.
func (c *ChatService) stream(ctx context.Context, sessionID string, p llm.Provider, req llm.Request) {
	topic := SessionTopic(sessionID)
	co := newCoalescer(DeltaInterval, func(text, reasoning string) {
		c.emit.Emit(topic, SessionMessage{Kind: "delta", Text: text, Reasoning: reasoning})
	})
	reply := store.AssistantMessage{Model: req.Model, Provider: providerOf(p, req.Model)}
	var text, reasoning strings.Builder
	var usage *llm.Usage
	var failure error
	var report *router.CallReport
	ctx = router.ReportTo(ctx, func(r router.CallReport) { report = &r })
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			failure = err
			break
		}
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
			co.add(ev.Text, "")
		case llm.EventReasoning:
			reasoning.WriteString(ev.Text)
			co.add("", ev.Text)
		case llm.EventToolCall:
			reply.ToolCalls = append(reply.ToolCalls, *ev.ToolCall)
		case llm.EventUsage:
			usage = ev.Usage
		case llm.EventDone:
			reply.StopReason = ev.StopReason
		case llm.EventRetry:
			// The router re-runs the call: what streamed so far is void, on screen too.
			co.discard()
			text.Reset()
			reasoning.Reset()
			reply.ToolCalls, usage = nil, nil
			c.emit.Emit(topic, SessionMessage{Kind: "reset", Text: ev.Text})
			c.append(sessionID, store.EventRetry, store.Retry{Reason: ev.Text})
		case llm.EventFallback:
			reply.Model = ev.Text
			c.append(sessionID, store.EventFallback, store.Fallback{Model: ev.Text})
		}
	}
	co.close()
	if failure == nil && ctx.Err() != nil {
		failure = ctx.Err()
	}
	reply.Text, reply.Reasoning = text.String(), reasoning.String()

	cause := context.Cause(ctx)
	interrupted := failure != nil && (errors.Is(cause, errStoppedByUser) || errors.Is(cause, errShutdown))
	if interrupted {
		reply.Interrupted = true
		reply.StopReason = "interrupted"
	} else if failure != nil {
		reply.StopReason = "error"
	}
	if failure == nil || reply.Text != "" || reply.Reasoning != "" {
		c.append(sessionID, store.EventAssistant, reply)
	}
	if usage != nil {
		u := *usage
		if u.Model == "" {
			u.Model = req.Model
		}
		c.append(sessionID, store.EventUsage, u)
	}
	if report != nil {
		c.append(sessionID, store.EventModelCall, report)
	}
	switch {
	case interrupted:
		c.append(sessionID, store.EventInterrupted, store.Interruption{Reason: cause.Error()})
	case failure != nil:
		e := asLLMError(failure, reply.Provider)
		c.append(sessionID, store.EventError, store.ErrorInfo{
			Kind: string(e.Kind), Message: e.Error(), Hint: e.Hint, Provider: e.Provider,
			Model: req.Model, Retryable: e.Kind != llm.ErrBadRequest,
		})
	}
}

// append records an event; a failure to record is itself shown to the user when possible.
func (c *ChatService) append(sessionID string, typ store.EventType, payload any) {
	if _, err := c.store.Append(sessionID, typ, payload); err != nil {
		c.emit.Emit(SessionTopic(sessionID), SessionMessage{Kind: "event", Event: store.Event{
			Session: sessionID, Type: store.EventError,
			Data: mustJSON(store.ErrorInfo{Kind: "storage", Message: fmt.Sprintf("could not save the %s event: %v", typ, err)}),
		}})
	}
}

func (c *ChatService) titleIfUntitled(sessionID, text string) {
	c.store.UpdateSession(sessionID, func(i *store.SessionInfo) {
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

// Messages projects a session's log onto the conversation sent to the model: user and
// assistant messages in order, up to the last user message. An interrupted reply stays in the
// context (the user saw it), but whatever follows the last user message is dropped, so a retry
// asks the same question again.
func Messages(events []store.Event) []llm.Message {
	var msgs []llm.Message
	lastUser := -1
	for _, ev := range events {
		switch ev.Type {
		case store.EventUser:
			var u store.UserMessage
			if ev.Decode(&u) == nil {
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: u.Text})
				lastUser = len(msgs) - 1
			}
		case store.EventAssistant:
			var a store.AssistantMessage
			if ev.Decode(&a) == nil && (a.Text != "" || len(a.ToolCalls) > 0) {
				msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: a.Text})
			}
		}
	}
	return msgs[:lastUser+1]
}

// providerOf names the configured provider that serves model.
func providerOf(p llm.Provider, model string) string {
	if g, ok := p.(interface{ ProviderOf(string) string }); ok {
		return g.ProviderOf(model)
	}
	return p.Name()
}
