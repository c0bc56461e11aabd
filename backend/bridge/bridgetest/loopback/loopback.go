// Package loopback holds what the bridge's loopback platform servers (telegramtest, slacktest)
// share: the failures a test asks a method to give (a rate limit, a lost connection), the
// count of calls, and waiting for a change of the server's state.
package loopback

import (
	"net/http"
	"sync"
	"time"
)

// Fault is a failure given instead of a method's answer: a rate limit (RetryAfter seconds) or
// a lost connection (Drop).
type Fault struct {
	RetryAfter int
	Drop       bool
}

// Faults are the failures queued per method, and how many times each method was called.
type Faults struct {
	mu    sync.Mutex
	calls map[string]int
	fail  map[string][]Fault
}

// RateLimit makes the next n calls of method answer "slow down" for retryAfter seconds.
func (f *Faults) RateLimit(method string, n, retryAfter int) {
	f.queue(method, n, Fault{RetryAfter: retryAfter})
}

// Drop makes the next n calls of method lose their connection (a network failure).
func (f *Faults) Drop(method string, n int) { f.queue(method, n, Fault{Drop: true}) }

func (f *Faults) queue(method string, n int, x Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail == nil {
		f.fail = map[string][]Fault{}
	}
	for range n {
		f.fail[method] = append(f.fail[method], x)
	}
}

// Calls is how many times method was called.
func (f *Faults) Calls(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

// Take counts a call of method and returns the failure it is to give, if one is queued.
func (f *Faults) Take(method string) (Fault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[method]++
	fs := f.fail[method]
	if len(fs) == 0 {
		return Fault{}, false
	}
	f.fail[method] = fs[1:]
	return fs[0], true
}

// Hangup closes w's connection without an answer; false when the server cannot.
func Hangup(w http.ResponseWriter) bool {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return false
	}
	c, _, err := hj.Hijack()
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Changes wakes those waiting on a server's state each time it changes.
type Changes struct {
	mu sync.Mutex
	ch chan struct{}
}

// Changed is closed at the next change (take it with the state it is to watch, under the
// lock the changes are made under, so that no change is missed).
func (c *Changes) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// Notify says the state changed.
func (c *Changes) Notify() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
	}
	c.ch = make(chan struct{})
}

// Until blocks until cond holds or timeout passes, checking it after every change, and says
// whether it held.
func (c *Changes) Until(timeout time.Duration, cond func() bool) bool {
	deadline := time.After(timeout)
	for {
		ch := c.Changed()
		if cond() {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return cond()
		}
	}
}
