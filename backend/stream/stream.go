// Package stream paces a turn's streamed text for a user interface: deltas gathered and sent
// at most once per interval, a reset (the call is re-run) sent at once with what was not yet
// sent dropped.
package stream

import (
	"strings"
	"sync"
	"time"
)

// DeltaInterval is how often streamed text is forwarded to the UI. Model servers send a chunk
// per token; forwarding each would cost one IPC message and one render per token.
const DeltaInterval = 40 * time.Millisecond

// coalescer gathers stream deltas and hands them to flush at most once per interval.
type coalescer struct {
	mu        sync.Mutex
	text      strings.Builder
	reasoning strings.Builder
	flush     func(text, reasoning string)
	stop      chan struct{}
	done      chan struct{}
}

func newCoalescer(interval time.Duration, flush func(text, reasoning string)) *coalescer {
	c := &coalescer{flush: flush, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				c.drain()
			case <-c.stop:
				return
			}
		}
	}()
	return c
}

func (c *coalescer) add(text, reasoning string) {
	c.mu.Lock()
	c.text.WriteString(text)
	c.reasoning.WriteString(reasoning)
	c.mu.Unlock()
}

// drain flushes under the lock, so a discard can never be overtaken by an older flush.
func (c *coalescer) drain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	text, reasoning := c.text.String(), c.reasoning.String()
	c.text.Reset()
	c.reasoning.Reset()
	if text != "" || reasoning != "" {
		c.flush(text, reasoning)
	}
}

// discard drops what has not been flushed yet, then runs then (under the same lock as
// flushes, so nothing flushed before the discard arrives after what then sends).
func (c *coalescer) discard(then func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.text.Reset()
	c.reasoning.Reset()
	then()
}

// close stops the ticker and flushes what is left.
func (c *coalescer) close() {
	close(c.stop)
	<-c.done
	c.drain()
}

// Sink is the agent's live view on one user interface topic (agent.Sink): deltas coalesced,
// resets sent at once (with anything not yet flushed dropped).
type Sink struct {
	co    *coalescer
	reset func(reason string)
}

// NewSink sends coalesced deltas to flush every interval and resets to reset.
func NewSink(interval time.Duration, flush func(text, reasoning string), reset func(reason string)) *Sink {
	return &Sink{co: newCoalescer(interval, flush), reset: reset}
}

// Delta adds streamed text.
func (s *Sink) Delta(text, reasoning string) { s.co.add(text, reasoning) }

// Reset drops what was not sent yet and sends the reset.
func (s *Sink) Reset(reason string) { s.co.discard(func() { s.reset(reason) }) }

// Drain sends what is held now (before the reply it belongs to is announced).
func (s *Sink) Drain() { s.co.drain() }

// Close stops the ticker and sends what is left.
func (s *Sink) Close() { s.co.close() }
