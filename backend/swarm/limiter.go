package swarm

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// limiter bounds the model calls a swarm's agents make to one provider and makes them back off
// together: when one call is refused with a 429, every agent waits until the provider should
// have recovered, instead of each hammering it on its own schedule and giving up. It lives in
// the swarm (the router's own retries and circuit breaker sit below it, per call).
type limiter struct {
	slots chan struct{} // a slot per call in flight

	mu     sync.Mutex
	until  time.Time // nobody calls before this
	streak int       // backoffs since the last success: the backoff doubles with each
	set    time.Time // when the backoff was last extended
	base   time.Duration
	// waits counts the calls that found the provider backing off (for the eval's report).
	waits, limited int
}

const (
	// rateRetries bounds how often one call is refused with a 429 before its agent gives up:
	// with the backoff doubling to maxBackoff, about ten minutes of a provider refusing.
	rateRetries = 24
	minBackoff  = 250 * time.Millisecond
	maxBackoff  = 30 * time.Second
)

func newLimiter(parallel int, base time.Duration) *limiter {
	if base <= 0 {
		base = minBackoff
	}
	return &limiter{slots: make(chan struct{}, max(parallel, 1)), base: base}
}

// wrap returns p with its calls going through l.
func (l *limiter) wrap(p llm.Provider) llm.Provider { return limited{Provider: p, l: l} }

type limited struct {
	llm.Provider
	l *limiter
}

// Stream waits for the shared backoff and a slot, then calls the provider; a 429 before the
// first event sets the backoff for everyone and the call waits and goes again.
func (p limited) Stream(ctx context.Context, req llm.Request) llm.Stream {
	return func(yield func(llm.Event, error) bool) {
		for attempt := 1; ; attempt++ {
			if err := p.l.acquire(ctx); err != nil {
				yield(llm.Event{}, &llm.Error{Kind: llm.ErrInterrupted, Message: "stopped while waiting for the provider", Err: err})
				return
			}
			var refused error
			started, sent := false, time.Now()
			for ev, err := range p.Provider.Stream(ctx, req) {
				if err != nil && !started && llm.KindOf(err) == llm.ErrRateLimited && attempt < rateRetries && ctx.Err() == nil {
					refused = err
					break
				}
				if err == nil && !started {
					started = true
					p.l.recovered()
				}
				if !yield(ev, err) {
					p.l.release()
					return
				}
			}
			p.l.release()
			if refused == nil {
				return
			}
			p.l.backoff(refused, sent)
		}
	}
}

// acquire waits until the provider is not backing off and a slot is free.
func (l *limiter) acquire(ctx context.Context) error {
	for {
		l.mu.Lock()
		wait := time.Until(l.until)
		if wait > 0 {
			l.waits++
		}
		l.mu.Unlock()
		if wait <= 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
	select {
	case l.slots <- struct{}{}:
		// The backoff may have started while this call waited for its slot.
		l.mu.Lock()
		wait := time.Until(l.until)
		l.mu.Unlock()
		if wait > 0 {
			<-l.slots
			return l.acquire(ctx)
		}
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (l *limiter) release() { <-l.slots }

// backoff makes every call wait: as long as the provider asked (Retry-After), else a doubling
// delay from the base (250 ms) to maxBackoff. Refusals of calls sent before the last backoff
// began belong to the same episode and do not double it again.
func (l *limiter) backoff(err error, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limited++
	if sent.After(l.set) || l.streak == 0 {
		l.streak++
	}
	d := l.base << min(l.streak-1, 8)
	var e *llm.Error
	if ok := asLLMError(err, &e); ok && e.RetryAfter > 0 {
		d = e.RetryAfter
	}
	d = min(d, maxBackoff)
	now := time.Now()
	if until := now.Add(d); until.After(l.until) {
		l.until, l.set = until, now
	}
}

// recovered resets the backoff once a call gets through.
func (l *limiter) recovered() {
	l.mu.Lock()
	l.streak = 0
	l.mu.Unlock()
}

// stats reports the calls refused with a 429 and the waits on the shared backoff.
func (l *limiter) stats() (limited, waits int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limited, l.waits
}

func asLLMError(err error, target **llm.Error) bool { return errors.As(err, target) }

// BackoffWaits counts the model calls of every swarm that waited on a provider's shared
// backoff (for `tofu eval swarm`).
func (s *Swarm) BackoffWaits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.limiters {
		_, w := l.stats()
		n += w
	}
	return n
}
