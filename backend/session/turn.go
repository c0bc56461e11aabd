package session

import (
	"context"
	"errors"
	"sync"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// Turn is a running turn: the handle to wait on it, and the mailbox of the questions it asks.
type Turn struct {
	Session string

	cancel    context.CancelCauseFunc
	done      chan struct{}
	end       agent.End
	sink      agent.Sink
	questions bool // ask_human is offered and answered through Runner.Answer

	mu      sync.Mutex
	answers map[string]chan string // ask_human answers, by call id
}

// Wait blocks until the turn has ended and its session is free, and says how it ended.
func (t *Turn) Wait() agent.End {
	<-t.done
	return t.end
}

// Done is closed once the turn has ended and its session is free.
func (t *Turn) Done() <-chan struct{} { return t.done }

// Busy says whether a turn runs in session.
func (r *Runner) Busy(session string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[session] != nil
}

// Running lists the sessions with a turn in flight.
func (r *Runner) Running() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.running))
	for id := range r.running {
		ids = append(ids, id)
	}
	return ids
}

// Sink is the live view of the turn running in session (nil when none runs).
func (r *Runner) Sink(session string) agent.Sink {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.running[session]; t != nil {
		return t.sink
	}
	return nil
}

// Stop interrupts the turn running in session, if any (the log records it as the user's stop).
func (r *Runner) Stop(session string) {
	if t := r.turn(session); t != nil {
		t.cancel(agent.ErrStoppedByUser)
	}
}

// StopAndWait stops the turn running in session and waits until it has recorded its end.
func (r *Runner) StopAndWait(session string) {
	if t := r.turn(session); t != nil {
		t.cancel(agent.ErrStoppedByUser)
		<-t.done
	}
}

// Shutdown interrupts every turn and waits until each has recorded where it stopped.
func (r *Runner) Shutdown() {
	r.mu.Lock()
	for _, t := range r.running {
		t.cancel(agent.ErrShutdown)
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Runner) turn(session string) *Turn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[session]
}

// Approve answers the approval the session's turn waits for on tool call callID (a
// permission.Answer: "allow", "allow_session", "allow_workspace", "allow_always",
// "allow_always_global" or "deny").
func (r *Runner) Approve(session, callID, decision string) error {
	a, err := permission.ParseAnswer(decision)
	if err != nil {
		return err
	}
	return r.o.Approvals.Answer(session, callID, a)
}

// ErrNoQuestion answers an Answer nobody waits for.
var ErrNoQuestion = errors.New("this question is no longer open (the turn ended): press Continue to ask again")

// Answer answers the ask_human question of tool call callID that the session's turn waits for
// (or will wait for: the card shows as soon as the call starts).
func (r *Runner) Answer(session, callID, text string) error {
	t := r.turn(session)
	if t == nil || !t.questions {
		return ErrNoQuestion
	}
	select {
	case t.slot(callID) <- text:
		return nil
	default:
		return errors.New("this question was already answered")
	}
}

// slot is the one-answer mailbox of a call.
func (t *Turn) slot(callID string) chan string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.answers == nil {
		t.answers = map[string]chan string{}
	}
	ch := t.answers[callID]
	if ch == nil {
		ch = make(chan string, 1)
		t.answers[callID] = ch
	}
	return ch
}

// Ask is the turn as ask_human's tools.Asker: it waits for Runner.Answer.
func (t *Turn) Ask(ctx context.Context, q tools.Question) (string, error) {
	select {
	case v := <-t.slot(q.CallID):
		return v, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
