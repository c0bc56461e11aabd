package router

import (
	"fmt"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// target is a Target with the health of its keys. A target without keys has one slot for its
// provider, so every target is handled alike. The router's mutex guards keys and cur.
type target struct {
	name  string // "" takes the provider's
	model string
	fixed llm.Provider
	build func(string) llm.Provider
	keys  []keyState
	cur   int // the key new calls start with; a 429 moves it on
}

type keyState struct {
	secret    string
	provider  llm.Provider // built on first use
	fails     int          // consecutive failures
	coolUntil time.Time    // the server's Retry-After: not used before
	benchEnd  time.Time    // failing: other keys preferred until
	authEnd   time.Time    // refused as unauthorized: not used before
}

func (k *keyState) authFailed(now time.Time) bool { return now.Before(k.authEnd) }

func newTarget(i int, t Target) (*target, error) {
	tg := &target{name: t.Name, model: t.Model, fixed: t.Provider, build: t.NewProvider}
	switch {
	case len(t.Keys) > 0 && t.NewProvider == nil:
		return nil, fmt.Errorf("router: target %d has keys but no NewProvider", i)
	case len(t.Keys) > 0:
		for _, k := range t.Keys {
			tg.keys = append(tg.keys, keyState{secret: k})
		}
	case t.Provider == nil:
		return nil, fmt.Errorf("router: target %d has no provider", i)
	default:
		tg.keys = []keyState{{provider: t.Provider}}
	}
	return tg, nil
}

// provider returns the provider of key i, building it on first use. Called under the lock.
func (t *target) provider(i int) llm.Provider {
	k := &t.keys[i]
	if k.provider == nil {
		k.provider = t.build(k.secret)
	}
	return k.provider
}

// label names the target running model in reports and in the breaker. Called under the lock.
func (t *target) label(model string) string {
	if t.name != "" {
		return t.name + "/" + model
	}
	return t.provider(0).Name() + "/" + model
}

// keyIndex is the index reported for key i: -1 when the target has no keys.
func (t *target) keyIndex(i int) int {
	if t.fixed != nil {
		return -1
	}
	return i
}

// errNoKey says why no key of a target can take a call now.
type errNoKey struct {
	kind llm.ErrorKind
	wait time.Duration
}

// pick chooses the key for the next attempt: the first from cur that is neither cooling down
// nor refused, preferring keys not benched. When every usable key is cooling down, it returns the one free soonest and how long to wait for
// it; it fails when that is longer than maxWait or every key was refused.
func (t *target) pick(now time.Time, maxWait time.Duration) (int, time.Duration, *errNoKey) {
	n := len(t.keys)
	benched, soonest := -1, -1
	for j := range n {
		i := (t.cur + j) % n
		k := &t.keys[i]
		switch {
		case k.authFailed(now):
		case now.Before(k.coolUntil):
			if soonest < 0 || k.coolUntil.Before(t.keys[soonest].coolUntil) {
				soonest = i
			}
		case now.Before(k.benchEnd):
			if benched < 0 {
				benched = i
			}
		default:
			return i, 0, nil
		}
	}
	switch {
	case benched >= 0:
		return benched, 0, nil
	case soonest < 0:
		return 0, 0, &errNoKey{kind: llm.ErrAuth}
	}
	wait := t.keys[soonest].coolUntil.Sub(now)
	if wait > maxWait {
		return 0, wait, &errNoKey{kind: llm.ErrRateLimited, wait: wait}
	}
	return soonest, wait, nil
}

// failed records a retryable failure of key i and reports whether the call should move to
// another key (it was rate limited and the target has others).
func (t *target) failed(i int, e *llm.Error, now time.Time, p Policy) (rotate bool) {
	k := &t.keys[i]
	k.fails++
	if k.fails >= p.BenchAfter {
		k.benchEnd = now.Add(p.BenchFor)
	}
	if e != nil && e.RetryAfter > 0 {
		k.coolUntil = now.Add(e.RetryAfter)
	}
	if e != nil && e.Kind == llm.ErrRateLimited && len(t.keys) > 1 {
		t.cur = (i + 1) % len(t.keys)
		return true
	}
	return false
}

// refused records that key i was refused as unauthorized and moves new calls off it.
func (t *target) refused(i int, now time.Time, p Policy) {
	t.keys[i].authEnd = now.Add(p.AuthBenchFor)
	if t.cur == i {
		t.cur = (i + 1) % len(t.keys)
	}
}

// succeeded clears key i's failures.
func (t *target) succeeded(i int) {
	k := &t.keys[i]
	k.fails, k.benchEnd = 0, time.Time{}
}
