package router

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// Health remembers, per target ("provider/model"), whether it has been failing: a circuit
// breaker. Without it every call would try a dead primary first and pay its retries again; with
// it, a target that failed OpenAfter times in a row is skipped for OpenFor (doubling up to
// MaxOpenFor while it stays dead), then one call probes it (half-open) while the others keep
// skipping it; a probe that succeeds closes the circuit. One Health is shared by every router
// of the app (WithHealth), so the turns and sub-agents learn from each other's failures.
// Skipping only ever happens when a later target of the chain can take the call. The router
// uses a nil *Health, which records nothing, when its policy turns the breaker off.
type Health struct {
	mu       sync.Mutex
	circuits map[string]*circuit
}

// NewHealth returns an empty health record: every target closed.
func NewHealth() *Health { return &Health{circuits: map[string]*circuit{}} }

type circuit struct {
	fails     int           // consecutive failures
	open      bool          // skipped until openUntil, then probed
	openUntil time.Time     // when the next probe may go
	openFor   time.Duration // how long the last opening lasts
	probing   bool          // a call is probing the target now
	last      string        // the latest failure, for the notice
}

func (h *Health) get(label string) *circuit {
	c := h.circuits[label]
	if c == nil {
		c = &circuit{}
		h.circuits[label] = c
	}
	return c
}

// admit says whether a call may try label now. probe is set when the call is the one that
// tests an open circuit whose time is up; it must end with succeeded, failed or release. When
// the call may not try, why says what happened and when the target is tried again.
func (h *Health) admit(label string, now time.Time) (ok, probe bool, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.get(label)
	switch {
	case !c.open:
		return true, false, ""
	case !c.probing && !now.Before(c.openUntil):
		c.probing = true
		return true, true, ""
	}
	next := "after the call probing it now"
	if !c.probing {
		next = "in " + c.openUntil.Sub(now).Round(time.Second).String()
	}
	return false, false, fmt.Sprintf("%s failed %d time(s) in a row (last: %s); it is tried again %s",
		label, c.fails, c.last, next)
}

// failed records a failure of label. It reports whether the circuit is open now, so the call
// moves on to the next target instead of retrying this one.
func (h *Health) failed(label string, err error, now time.Time, p Policy) (open bool) {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.get(label)
	c.fails++
	c.last = err.Error()
	openFor := openingFor(err, p)
	switch {
	case c.probing:
		// The probe failed: still dead; wait longer before the next one.
		c.probing = false
		c.openFor = min(max(2*c.openFor, openFor), p.MaxOpenFor)
		c.openUntil = now.Add(c.openFor)
	case !c.open && c.fails >= p.OpenAfter:
		c.open, c.openFor = true, openFor
		c.openUntil = now.Add(openFor)
	}
	return c.open
}

// gaveUp records that a call gave label up (its attempts ran out, or an answer no retry can
// change, like a model not found): the circuit opens whatever the count.
func (h *Health) gaveUp(label string, err error, now time.Time, p Policy) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.get(label)
	c.last = err.Error()
	c.fails = max(c.fails, 1)
	if !c.open {
		c.open, c.openFor = true, openingFor(err, p)
		c.openUntil = now.Add(c.openFor)
	}
	c.probing = false
}

// openingFor is how long a circuit opened by err stays open: the policy's time, or longer when
// the server said when to come back (its key cools down until then: a probe before that would
// not even be sent, and the notice would name the wrong time).
func openingFor(err error, p Policy) time.Duration {
	var e *llm.Error
	if errors.As(err, &e) && e.RetryAfter > p.OpenFor {
		return e.RetryAfter
	}
	return p.OpenFor
}

// succeeded closes label's circuit; reopened says it had been open (the target is back).
func (h *Health) succeeded(label string) (reopened bool) {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.get(label)
	reopened = c.open
	*c = circuit{}
	return reopened
}

// release ends a probe that found out nothing (the consumer stopped, a bad request): the next
// call probes again.
func (h *Health) release(label string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.get(label).probing = false
}

// State is a target's health as Health reports it.
type State struct {
	Target    string    `json:"target"`
	Open      bool      `json:"open"`
	Failures  int       `json:"failures"`
	OpenUntil time.Time `json:"open_until,omitzero"`
	Last      string    `json:"last,omitempty"`
}

// States lists the targets Health has seen, for a status view.
func (h *Health) States() []State {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]State, 0, len(h.circuits))
	for label, c := range h.circuits {
		out = append(out, State{Target: label, Open: c.open, Failures: c.fails, OpenUntil: c.openUntil, Last: c.last})
	}
	return out
}
