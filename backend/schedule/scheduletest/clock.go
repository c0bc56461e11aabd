// Package scheduletest holds the scheduler's hand-moved clock, for tests of the scheduler
// and of what it runs: time passes only when the test says, never on the wall clock.
package scheduletest

import (
	"sync"
	"time"
)

// Clock is moved by hand: After's channels fire when Advance passes their time.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	// Waiting receives once for each After, so a test knows the scheduler's loop sleeps.
	Waiting chan struct{}
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// New returns a clock showing t.
func New(t time.Time) *Clock {
	return &Clock{now: t, Waiting: make(chan struct{}, 100)}
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After delivers once Advance moved the clock d past now (at once when d <= 0).
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
	} else {
		c.waiters = append(c.waiters, waiter{c.now.Add(d), ch})
	}
	c.Waiting <- struct{}{}
	return ch
}

// Advance moves the clock by d and fires the channels whose time came.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}
