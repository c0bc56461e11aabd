package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
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
	// approvals decides tool calls and holds the approvals turns wait on.
	approvals *permission.Service
	// windows caches the context window of each model for the provider configuration windowsOf.
	windows   map[string]int
	windowsOf string

	// augment, when set, rewrites the request of a turn before it is sent (the paper reader
	// puts the retrieved passages in). It may append events to the session.
	augment func(sessionID, model string, msgs []llm.Message) ([]llm.Message, error)
}

type turn struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
	agent  bool        // runs with tools (the session has a workspace)
	sink   *streamSink // the live view, once the turn streams

	mu      sync.Mutex
	answers map[string]chan string // ask_human answers, by call id (approvals wait in the approval service)
}

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

// Retry runs the model again on the log as it is, after an error or an interruption. In a
// session with a workspace it is Continue.
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
		t.cancel(agent.ErrStoppedByUser)
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

// shutdown interrupts every reply and waits until each has recorded where it stopped.
func (c *ChatService) shutdown() {
	c.mu.Lock()
	for _, t := range c.running {
		t.cancel(agent.ErrShutdown)
	}
	c.mu.Unlock()
	c.wg.Wait()
}

func (c *ChatService) stopAndWait(sessionID string) {
	c.mu.Lock()
	t := c.running[sessionID]
	c.mu.Unlock()
	if t != nil {
		t.cancel(agent.ErrStoppedByUser)
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
		set, _ := c.settings.config()
		model = set.Models.Main
	}
	if model == "" {
		return errors.New("no model is selected: pick one in the model picker")
	}
	info, err := c.store.Session(sessionID)
	if err != nil {
		return err
	}
	agentMode := info.Workspace != "" && info.Paper == ""
	autonomous := agentMode && info.Mode == ModeAutonomous
	msgs := agent.Messages(events)
	// An autonomous run goes on from its log wherever it stopped (a critic's review, …).
	if len(msgs) == 0 || (msgs[len(msgs)-1].Role != llm.RoleUser && !(agentMode && msgs[len(msgs)-1].Role == llm.RoleTool) && !autonomous) {
		return errors.New("there is no message to answer")
	}

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
	release := func() {
		c.mu.Lock()
		delete(c.running, sessionID)
		c.mu.Unlock()
		cancel(nil)
		c.wg.Done()
	}

	provider, err := c.providers.get()
	if err != nil {
		release()
		return err
	}
	at := agent.Turn{Session: sessionID, Model: model, System: assets.Prompt("chat"), Price: c.price}
	closeTools := func() {}
	var instructions string
	if agentMode {
		if closeTools, instructions, err = c.agentTurn(&at, t, info.Workspace, events); err != nil {
			release()
			return err
		}
	} else if info.Paper == "" {
		// A plain conversation: compacted like an agent's (L1 on every request, L2 near the
		// window), without tools.
		if at.Context, err = c.contextManager(events); err != nil {
			release()
			return err
		}
	} else if c.augment != nil {
		withSystem := append([]llm.Message{{Role: llm.RoleSystem, Content: at.System}}, msgs...)
		augmented, err := c.augment(sessionID, model, withSystem)
		if err != nil {
			release()
			return err
		}
		// The passages were chosen (and logged) for this question: the turn sends exactly that.
		at.System = ""
		at.Augment = func([]llm.Message) ([]llm.Message, error) { return augmented, nil }
	}
	c.store.UpdateSession(sessionID, func(i *store.SessionInfo) { i.Model = model })

	go func() {
		topic := SessionTopic(sessionID)
		c.emit.Emit(topic, SessionMessage{Kind: MessageStream, State: StreamStarted})
		sink := newStreamSink(c.emit, topic)
		c.mu.Lock()
		t.sink = sink
		c.mu.Unlock()
		at.Sink = sink
		if at.Context != nil {
			c.contextModels(ctx, &at)
		}
		a := &agent.Agent{Log: c.store, Provider: provider}
		if autonomous {
			a.RunAutonomous(ctx, at, agent.AutoOptions{Instructions: instructions})
		} else {
			a.Run(ctx, at)
		}
		closeTools()
		sink.close()
		// Free the session before saying so: a Send on "ended" must not find it busy.
		release()
		c.emit.Emit(topic, SessionMessage{Kind: MessageStream, State: StreamEnded})
		close(t.done)
	}()
	return nil
}

// settle sends the deltas of the session's live view still held by the coalescer before the
// reply they belong to is announced: a delta arriving after its reply would show the text again
// (in an agent turn, as a phantom reply under the tool cards until the next step).
func (c *ChatService) settle(ev store.Event) {
	if ev.Type != store.EventAssistant {
		return
	}
	c.mu.Lock()
	var sink *streamSink
	if t := c.running[ev.Session]; t != nil {
		sink = t.sink
	}
	c.mu.Unlock()
	if sink != nil {
		sink.co.drain()
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

// price is a call's cost from the price table in the settings (0 for unlisted models).
func (c *ChatService) price(model string, u llm.Usage) float64 {
	cfg, err := c.settings.config()
	if err != nil {
		return 0
	}
	p, ok := cfg.Prices[model]
	if !ok {
		return 0
	}
	return p.Cost(u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens)
}
