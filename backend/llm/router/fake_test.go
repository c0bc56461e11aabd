package router

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// step is what a fake provider does for one call: wait (on the test clock), fail before any
// event, or deliver events and then fail or end without its done event.
type step struct {
	delay  time.Duration
	err    error // before the first event
	events []llm.Event
	after  error // after the events
	noDone bool  // events carry no done and the stream just ends
}

// fake is an in-memory llm.Provider scripted per call.
type fake struct {
	name   string
	clock  *fakeClock
	models []llm.ModelInfo

	mu    sync.Mutex
	next  func(n int, req llm.Request) step // n counts this provider's calls from 0
	calls []llm.Request
}

func (f *fake) Name() string { return f.name }

func (f *fake) Models(context.Context) ([]llm.ModelInfo, error) { return f.models, nil }

func (f *fake) Stream(ctx context.Context, req llm.Request) llm.Stream {
	return func(yield func(llm.Event, error) bool) {
		f.mu.Lock()
		n := len(f.calls)
		f.calls = append(f.calls, req)
		s := f.next(n, req)
		f.mu.Unlock()
		if s.delay > 0 && f.clock != nil {
			if err := f.clock.Sleep(ctx, s.delay); err != nil {
				yield(llm.Event{}, &llm.Error{Kind: llm.ErrInterrupted, Message: "cancelled", Err: err})
				return
			}
		}
		if s.err != nil {
			yield(llm.Event{}, s.err)
			return
		}
		for _, ev := range s.events {
			if ctx.Err() != nil {
				yield(llm.Event{}, &llm.Error{Kind: llm.ErrInterrupted, Message: "cancelled", Err: ctx.Err()})
				return
			}
			if s.noDone && ev.Kind == llm.EventDone {
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
		if s.after != nil {
			yield(llm.Event{}, s.after)
		}
	}
}

func (f *fake) numCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// script answers the calls in order with steps, then every later call with the last one.
func script(steps ...step) func(int, llm.Request) step {
	return func(n int, _ llm.Request) step { return steps[min(n, len(steps)-1)] }
}

// reply is a complete answer streamed in chunks of about size bytes.
func reply(text string, size int) []llm.Event {
	var evs []llm.Event
	for len(text) > 0 {
		n := min(size, len(text))
		evs = append(evs, llm.Event{Kind: llm.EventText, Text: text[:n]})
		text = text[n:]
	}
	return append(evs,
		llm.Event{Kind: llm.EventUsage, Usage: &llm.Usage{InputTokens: 10, OutputTokens: len(evs)}},
		llm.Event{Kind: llm.EventDone, StopReason: "stop"})
}

func ok(text string) step { return step{events: reply(text, 4)} }

func fail(kind llm.ErrorKind, status int) step {
	return step{err: &llm.Error{Kind: kind, StatusCode: status, Message: string(kind)}}
}

func rateLimited(after time.Duration) step {
	return step{err: &llm.Error{Kind: llm.ErrRateLimited, StatusCode: 429, Message: "slow down", RetryAfter: after}}
}

// brokenAfter delivers the first k events of text's reply, then a connection reset.
func brokenAfter(text string, k int) step {
	return step{events: reply(text, 4)[:k], after: &llm.Error{Kind: llm.ErrServer, Message: "connection reset"}}
}

// fakeClock advances only when slept on, so backoffs take no time.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	// onSleep, when set, runs before each sleep (a test cancels a context from it).
	onSleep func()
}

func newClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if c.onSleep != nil {
		c.onSleep()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// outcome is what a consumer that honours EventRetry ends up with.
type outcome struct {
	text      string
	calls     []llm.ToolCall
	done      int
	retries   []string
	fallbacks []string
	err       error
}

func consume(s llm.Stream) outcome {
	var o outcome
	var text strings.Builder
	for ev, err := range s {
		if err != nil {
			o.err = err
			break
		}
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventToolCall:
			o.calls = append(o.calls, *ev.ToolCall)
		case llm.EventDone:
			o.done++
		case llm.EventRetry:
			text.Reset()
			o.calls, o.done = nil, 0
			o.retries = append(o.retries, ev.Text)
		case llm.EventFallback:
			o.fallbacks = append(o.fallbacks, ev.Text)
		}
	}
	o.text = text.String()
	return o
}

// newTestRouter builds a router with a fake clock, no jitter and a report sink.
func newTestRouter(t *testing.T, clock *fakeClock, targets ...Target) (*Router, *[]CallReport) {
	t.Helper()
	var mu sync.Mutex
	reports := new([]CallReport)
	r, err := New(targets, WithClock(clock), WithRand(func() float64 { return 0 }),
		WithReport(func(rep CallReport) {
			mu.Lock()
			defer mu.Unlock()
			*reports = append(*reports, rep)
		}))
	if err != nil {
		t.Fatal(err)
	}
	return r, reports
}
