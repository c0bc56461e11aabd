package agent

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// ErrLog is in the error of a turn that stopped because its session's log could not be read
// or written: the log cannot say so, the caller must show it.
var ErrLog = errors.New("the session's log could not be read or written")

// Journal is a session's log held in memory for its turns: read once, then every event a turn
// appends is added as it is written, with the conversation projected one event at a time. A
// step reads it instead of reading and decoding the whole log again, and what a step records
// goes out in one batch (one transaction, one sync). Kept from turn to turn (Turn.Journal), it
// reads only what others appended in between (the user's next message).
//
// A turn's copies (an autonomous run's phases) share one journal. It is safe for concurrent
// use: parallel tool calls record their approvals through it. One turn at a time uses it.
type Journal = journal

type journal struct {
	log     Log
	session string

	mu     sync.Mutex
	events []store.Event // the whole log
	// path is the log's active path (store.ActivePath): what the turn reads and projects.
	// Without branches it is events itself.
	path []store.Event
	proj projection
	// pending are events made while a request is built (context manager moves, notices):
	// they are written with the step's next write, ahead of it.
	pending []store.Entry
	failed  error // the first write that failed: the turn ends with it
	// part reads the bytes of attached images (the log's RequestPart, when it has one).
	part func(key string) ([]byte, error)
}

// partReader is a Log that keeps request parts (store.Store): attached images are read from it.
type partReader interface {
	RequestPart(key string) ([]byte, error)
}

// OpenJournal reads a session's log into a Journal.
func OpenJournal(log Log, session string) (*Journal, error) {
	j := &journal{log: log, session: session}
	if pr, ok := log.(partReader); ok {
		j.part = pr.RequestPart
		j.proj.part = j.part
	}
	if err := j.Sync(); err != nil {
		return nil, err
	}
	return j, nil
}

// Sync reads what was appended to the log since the journal last saw it, and starts a new turn:
// the failure of the previous one is forgotten. A turn calls it when it starts.
func (j *journal) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.failed, j.pending = nil, nil
	evs, err := j.log.EventsFrom(j.session, j.lastSeq()+1)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLog, err)
	}
	j.apply(evs)
	return nil
}

// Session is the id of the journal's session.
func (j *journal) Session() string { return j.session }

// Events is the active path of the log so far (the whole log when it has no branches). The
// caller must not modify the events.
func (j *journal) Events() []store.Event { return j.snapshot() }

// Messages is Messages of the log so far, in a slice of the caller's own.
func (j *journal) Messages() []llm.Message { return j.messages() }

// apply adds durable events to the view. The caller holds j.mu (or owns j). An event goes on
// the active path (it hangs below the head, the path's last event); a branch or a switch
// changes the path, which is then read again from the whole log with its projection.
func (j *journal) apply(evs []store.Event) {
	for _, ev := range evs {
		j.events = append(j.events, ev)
		if ev.Type == store.EventBranch || ev.Type == store.EventBranchSwitch {
			j.path = slices.Clone(store.ActivePath(j.events))
			j.proj = projection{part: j.part}
			for _, e := range j.path {
				j.proj.add(e)
			}
			continue
		}
		j.path = append(j.path, ev)
		j.proj.add(ev)
	}
}

// last is the seq of the log's last event the journal holds.
func (j *journal) last() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.lastSeq()
}

func (j *journal) lastSeq() uint64 {
	if len(j.events) == 0 {
		return 0
	}
	return j.events[len(j.events)-1].Seq
}

// later queues an event for the turn's next write.
func (j *journal) later(typ store.EventType, payload any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pending = append(j.pending, store.Entry{Type: typ, Payload: payload})
}

// record writes the queued events and entries, in order, in one batch, and returns the events
// written. A failure is kept: it is what the turn ends with (see err), and the first failure
// is returned by every later record too, so no caller goes on as if its event were logged.
func (j *journal) record(entries ...store.Entry) ([]store.Event, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	batch := append(j.pending, entries...)
	j.pending = nil
	if len(batch) == 0 {
		return nil, j.failed
	}
	last := j.lastSeq()
	evs, err := j.log.AppendBatch(j.session, batch...)
	if len(evs) > 0 && evs[0].Seq != last+1 {
		// Someone else appended to the session meanwhile: take the log as it is.
		if all, rerr := j.log.EventsFrom(j.session, last+1); rerr == nil {
			j.apply(all)
		} else if err == nil {
			err = rerr
		}
	} else {
		j.apply(evs)
	}
	if err != nil && j.failed == nil {
		j.failed = fmt.Errorf("%w, so the turn stopped: %w", ErrLog, err)
	}
	if j.failed != nil {
		return evs, j.failed
	}
	return evs, nil
}

// add records one event (with the queued ones).
func (j *journal) add(typ store.EventType, payload any) error {
	_, err := j.record(store.Entry{Type: typ, Payload: payload})
	return err
}

// err is the first failed write of the turn (nil: none).
func (j *journal) err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.failed
}

// snapshot is the active path so far. The caller must not modify the events.
func (j *journal) snapshot() []store.Event {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.path[:len(j.path):len(j.path)]
}

// messages is Messages of the log so far, in a slice of the caller's own.
func (j *journal) messages() []llm.Message {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.proj.messages()
}
