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

func (c *coalescer) drain() {
	c.mu.Lock()
	text, reasoning := c.text.String(), c.reasoning.String()
	c.text.Reset()
	c.reasoning.Reset()
	c.mu.Unlock()
	if text != "" || reasoning != "" {
		c.flush(text, reasoning)
	}
}

// discard drops what has not been flushed yet.
func (c *coalescer) discard() {
	c.mu.Lock()
	c.text.Reset()
	c.reasoning.Reset()
	c.mu.Unlock()
}

// close stops the ticker and flushes what is left.
func (c *coalescer) close() {
	close(c.stop)
	<-c.done
	c.drain()
}
