package router

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// Stream runs req on the chain. Events pass through as they arrive; when an attempt that
// already delivered some fails and the call is re-run (on the same target or the next), an
// EventRetry tells the consumer to discard them, and an EventFallback names the new model.
// Breaking out of the range loop cancels the request in flight.
func (r *Router) Stream(ctx context.Context, req llm.Request) llm.Stream {
	return func(yield func(llm.Event, error) bool) {
		c := &call{r: r, ctx: ctx, req: req, yield: yield, start: r.clock.Now()}
		c.rep.Model = req.Model
		err := c.run()
		c.finish(err)
		if err != nil && !c.stopped {
			yield(llm.Event{}, err)
		}
	}
}

// call is one Stream in progress.
type call struct {
	r     *Router
	ctx   context.Context
	req   llm.Request
	yield func(llm.Event, error) bool
	start time.Time
	rep   CallReport
	// dirty is whether events were delivered since the call began or the last EventRetry.
	dirty   bool
	stopped bool // the consumer stopped reading
}

// run walks the chain from the target that names the requested model.
func (c *call) run() error {
	targets := c.r.targets
	first := c.r.startIndex(c.req.Model)
	var from, why string
	for i := first; ; i++ {
		t := targets[i]
		model := t.model
		if model == "" {
			model = c.req.Model
		}
		c.r.mu.Lock()
		label := t.label(model)
		c.r.mu.Unlock()
		if i > first {
			// A named target (the gateway's) is known by its reference outside: that is the
			// model the reply is from.
			name := model
			if t.name != "" {
				name = label
			}
			fb := &llm.Fallback{From: from, To: label, Reason: why}
			if !c.discard("falling back to "+name) || !c.send(llm.Event{Kind: llm.EventFallback, Text: name, Fallback: fb}) {
				return nil
			}
			c.rep.Fallback++
		}
		last := i == len(targets)-1
		err := c.onTarget(t, model, label, !last)
		if err == nil || c.stopped {
			return nil
		}
		if last || !fallsBack(err) {
			return err
		}
		if n := len(c.rep.Attempts); n > 0 {
			c.rep.Attempts[n-1].Next = "fallback"
		}
		from, why = label, err.Error()
	}
}

// skipped is the error of a target passed over because its circuit is open.
type skipped struct{ why string }

func (s *skipped) Error() string { return s.why }

// fallsBack reports whether the next target may succeed where this one failed. An overflow or a
// bad request would fail the same way (the context layer compacts on overflow), and a
// cancellation stops everything.
func fallsBack(err error) bool {
	var s *skipped
	if errors.As(err, &s) {
		return true
	}
	switch llm.KindOf(err) {
	case llm.ErrRateLimited, llm.ErrServer, llm.ErrUnreachable, llm.ErrModelNotFound, llm.ErrAuth:
		return true
	}
	return false
}

// onTarget runs the call on t (label: how reports and the breaker name it) until it completes,
// the consumer stops, or t gives up; it returns nil in the first two cases. canFallBack says a
// later target can take the call: then t is skipped while its circuit is open, and given up as
// soon as its circuit opens.
func (c *call) onTarget(t *target, model, label string, canFallBack bool) error {
	r, pol := c.r, c.r.policy
	req := c.req
	req.Model = model
	req = c.forModel(t, req)
	probe := false
	health := r.health
	if pol.OpenAfter < 0 {
		health = nil // the breaker is off
	}
	if canFallBack && health != nil {
		ok, pr, why := health.admit(label, r.clock.Now())
		if !ok {
			c.rep.Attempts = append(c.rep.Attempts, Attempt{Target: label, Key: -1, Skipped: true, Message: why})
			return &skipped{why: why}
		}
		probe = pr
	}
	defer func() {
		if probe {
			health.release(label) // a probe that found out nothing
		}
	}()
	// giveUp records the last attempt and opens t's circuit: this call is done with t.
	giveUp := func(a Attempt, err error) error {
		c.rep.Attempts = append(c.rep.Attempts, a)
		health.gaveUp(label, err, r.clock.Now(), pol)
		probe = false
		return err
	}
	var attempts, restarts, failures int
	var backoff time.Duration
	var last error
	prev, prevKey := -1, -1 // this target's latest attempt in the report, and its key
	for {
		if c.ctx.Err() != nil {
			return c.interrupted(nil)
		}
		r.mu.Lock()
		ki, keyWait, noKey := t.pick(r.clock.Now(), pol.MaxWait)
		var p llm.Provider
		if noKey == nil {
			p = t.provider(ki)
		}
		r.mu.Unlock()
		if prev >= 0 {
			// The label of the last attempt says what happened: another key, or the same one
			// again (after waiting for it).
			switch {
			case noKey != nil:
				c.rep.Attempts[prev].Next = ""
			case c.rep.Attempts[prev].Next == "rotate_key" && ki == prevKey:
				c.rep.Attempts[prev].Next = "retry"
			}
		}
		if noKey != nil {
			err := noKeyError(noKey, last)
			health.gaveUp(label, err, r.clock.Now(), pol)
			probe = false
			return err
		}
		c.rep.Target = label
		wait := max(backoff, keyWait)
		if wait > 0 {
			if err := r.clock.Sleep(c.ctx, wait); err != nil {
				return c.interrupted(err)
			}
		}

		a := Attempt{Target: label, Key: t.keyIndex(ki), Wait: wait, Probe: probe}
		events, done, err := c.stream(p, req)
		a.Events = events
		if c.stopped || done {
			if done {
				r.mu.Lock()
				t.succeeded(ki)
				r.mu.Unlock()
				probe = false
				if health.succeeded(label) && canFallBack {
					c.send(llm.Event{Kind: llm.EventNotice, Text: label + " answers again: calls go to it first again"})
				}
			}
			c.rep.Attempts = append(c.rep.Attempts, a)
			return nil
		}
		broke := err == nil
		if broke {
			err = &llm.Error{Kind: llm.ErrServer, Provider: p.Name(),
				Message: "the stream ended before the reply was complete"}
		}
		var le *llm.Error
		errors.As(err, &le)
		a.Fault, a.Message = llm.KindOf(err), err.Error()
		if le != nil {
			a.Status = le.StatusCode
		}
		last = err
		if c.ctx.Err() != nil || a.Fault == llm.ErrInterrupted {
			c.rep.Attempts = append(c.rep.Attempts, a)
			return c.interrupted(err)
		}

		now := r.clock.Now()
		switch a.Fault {
		case llm.ErrAuth:
			// This key is wrong, not the request: the next key gets the call at once.
			r.mu.Lock()
			t.refused(ki, now, pol)
			r.mu.Unlock()
			a.Next = "rotate_key"
			prev, prevKey = len(c.rep.Attempts), ki
			c.rep.Attempts = append(c.rep.Attempts, a)
			backoff = 0
			if !c.discard(err.Error()) {
				return nil
			}
			continue
		case llm.ErrRateLimited, llm.ErrServer, llm.ErrUnreachable:
		case llm.ErrModelNotFound:
			return giveUp(a, err)
		default:
			c.rep.Attempts = append(c.rep.Attempts, a)
			return err
		}

		r.mu.Lock()
		rotate := t.failed(ki, le, now, pol)
		r.mu.Unlock()
		open := health.failed(label, err, now, pol)
		probe = false
		failures++
		if events == 0 && !broke {
			attempts++
			a.Next = "retry"
		} else {
			restarts++
			a.Next = "restart"
		}
		if attempts >= pol.MaxAttempts || restarts > pol.MaxRestarts || (canFallBack && open) {
			a.Next = ""
			return giveUp(a, err)
		}
		if rotate {
			a.Next, backoff = "rotate_key", 0
		} else {
			backoff = r.backoff(failures)
		}
		prev, prevKey = len(c.rep.Attempts), ki
		c.rep.Attempts = append(c.rep.Attempts, a)
		if !c.discard(err.Error()) {
			return nil
		}
	}
}

// stream runs one attempt, passing its events on. done is whether it reached EventDone; a nil
// err without done means the stream ended early, or the consumer stopped (c.stopped).
func (c *call) stream(p llm.Provider, req llm.Request) (events int, done bool, err error) {
	for ev, err := range p.Stream(c.ctx, req) {
		if err != nil {
			return events, false, err
		}
		if !c.send(ev) {
			return events, false, nil
		}
		events++
		if ev.Kind == llm.EventDone {
			return events, true, nil
		}
	}
	if c.ctx.Err() != nil {
		return events, false, c.interrupted(nil)
	}
	return events, false, nil
}

// send passes ev downstream, recording whether the consumer is still reading.
func (c *call) send(ev llm.Event) bool {
	if ev.Kind != llm.EventFallback {
		c.dirty = true
	}
	if !c.yield(ev, nil) {
		c.stopped = true
		return false
	}
	return true
}

// discard tells the consumer to drop what the failed attempt delivered, if anything.
func (c *call) discard(reason string) bool {
	if !c.dirty {
		return true
	}
	c.rep.Restarts++
	ok := c.send(llm.Event{Kind: llm.EventRetry, Text: reason})
	c.dirty = false
	return ok
}

// interrupted is the error for a call cancelled by its context; err is the provider's, if any.
func (c *call) interrupted(err error) error {
	if llm.KindOf(err) == llm.ErrInterrupted {
		return err
	}
	return &llm.Error{Kind: llm.ErrInterrupted, Provider: c.r.name,
		Message: "the request was cancelled", Err: context.Cause(c.ctx)}
}

// noKeyError explains why a target has no key to try; last is the latest failure, if any.
func noKeyError(e *errNoKey, last error) error {
	if e.kind == llm.ErrAuth && llm.KindOf(last) == llm.ErrAuth {
		return last
	}
	out := &llm.Error{Kind: e.kind, Err: last}
	switch e.kind {
	case llm.ErrAuth:
		out.Message = "every API key was refused as unauthorized"
		out.Hint = "Check the API keys in Settings."
	default:
		out.Message = fmt.Sprintf("rate limited: the server asked to wait %s", e.wait.Round(time.Second))
		out.Hint = "Wait, add another API key, or configure a fallback model in Settings."
		out.RetryAfter = e.wait
	}
	return out
}

// finish completes the report and delivers it.
func (c *call) finish(err error) {
	switch {
	case c.stopped:
		c.rep.Outcome = "stopped"
	case err != nil:
		c.rep.Outcome = string(llm.KindOf(err))
		if c.rep.Outcome == "" {
			c.rep.Outcome = "error"
		}
	default:
		c.rep.Outcome = "ok"
	}
	c.rep.Duration = c.r.clock.Now().Sub(c.start)
	if c.r.report != nil {
		c.r.report(c.rep)
	}
	if f, ok := c.ctx.Value(reportKey{}).(func(CallReport)); ok {
		f(c.rep)
	}
}
