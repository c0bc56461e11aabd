package app

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

// streamSink is the agent's live view on one session topic: deltas coalesced, resets sent at
// once (with anything not yet flushed dropped).
type streamSink struct {
	co    *coalescer
	emit  Emitter
	topic string
}

func newStreamSink(emit Emitter, topic string) *streamSink {
	return &streamSink{emit: emit, topic: topic, co: newCoalescer(DeltaInterval, func(text, reasoning string) {
		emit.Emit(topic, SessionMessage{Kind: MessageDelta, Text: text, Reasoning: reasoning})
	})}
}

func (s *streamSink) Delta(text, reasoning string) { s.co.add(text, reasoning) }

func (s *streamSink) Reset(reason string) {
	s.co.discard(func() { s.emit.Emit(s.topic, SessionMessage{Kind: MessageReset, Text: reason}) })
}

func (s *streamSink) close() { s.co.close() }
