// Package app holds the thin services the user interface calls, and the two transports that
// expose them: Wails bindings in the window and HTTP + Server-Sent Events for `tofu serve`.
package app

import (
	"sync"

	"github.com/tofu-research/tofu/backend/desk"
	"github.com/tofu-research/tofu/backend/models"
)

// Emitter sends an event to the user interface. Implementations must not block.
type Emitter interface {
	Emit(topic string, data any)
}

// Fanout is an Emitter that forwards to any number of emitters; one is set per transport,
// and one per command forwarded from the terminal while it runs.
type Fanout struct {
	mu   sync.RWMutex
	next int
	outs map[int]Emitter
}

// Add registers another destination; remove unregisters it.
func (f *Fanout) Add(e Emitter) (remove func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.outs == nil {
		f.outs = map[int]Emitter{}
	}
	id := f.next
	f.next++
	f.outs[id] = e
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.outs, id)
	}
}

// Emit implements Emitter.
func (f *Fanout) Emit(topic string, data any) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for _, e := range f.outs {
		e.Emit(topic, data)
	}
}

// Topics of the events the UI listens to (docs/API.md).
const TopicSessions = desk.TopicSessions

// TopicModels carries ModelStatus updates.
const TopicModels = models.Topic

// SessionTopic is the topic of one session's events and deltas.
func SessionTopic(id string) string { return "session:" + id }

// SessionMessage is the payload on a SessionTopic.
type SessionMessage struct {
	Kind      MessageKind `json:"kind"`
	Event     any         `json:"event,omitempty"`
	Text      string      `json:"text,omitempty"`
	Reasoning string      `json:"reasoning,omitempty"`
	State     StreamState `json:"state,omitempty"`
	// Error (on "ended") is why the turn stopped when its log could not say it: the session's
	// log could not be read or written.
	Error string `json:"error,omitempty"`
}

// MessageKind says what a SessionMessage carries. The front end's copy is generated
// (backend/protocol).
type MessageKind string

const (
	MessageEvent  MessageKind = "event"  // Event: an event of the log, once it is durable
	MessageDelta  MessageKind = "delta"  // Text, Reasoning: more of the reply streaming
	MessageStream MessageKind = "stream" // State: a reply started or ended
	MessageReset  MessageKind = "reset"  // Text (why): the call is re-run, what streamed is void
)

// StreamState is the State of a stream message.
type StreamState string

const (
	StreamStarted StreamState = "started"
	StreamEnded   StreamState = "ended"
)
