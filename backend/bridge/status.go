package bridge

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Status is what Settings shows of a bridge.
type Status struct {
	Name      string    `json:"name"`
	Platform  string    `json:"platform"`
	Connected bool      `json:"connected"`
	Error     string    `json:"error,omitempty"`   // the last failure to reach the platform
	RetryAt   time.Time `json:"retry_at,omitzero"` // when the next attempt is (offline)
	Running   int       `json:"running"`           // conversations with a turn in flight
	Since     time.Time `json:"since,omitzero"`    // connected or offline since
}

// health is a bridge's connection state, changed by the listen loop.
type health struct {
	mu sync.Mutex
	s  Status
}

func (h *health) connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.s.Connected {
		h.s.Connected, h.s.Error, h.s.RetryAt, h.s.Since = true, "", time.Time{}, time.Now()
	}
}

func (h *health) offline(err error, retry time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.s.Connected || h.s.Since.IsZero() {
		h.s.Since = time.Now()
	}
	h.s.Connected, h.s.Error, h.s.RetryAt = false, err.Error(), retry
}

// Status says whether the bridge reaches its platform, and if not why and when it retries.
func (b *Bridge) Status() Status {
	b.health.mu.Lock()
	s := b.health.s
	b.health.mu.Unlock()
	s.Name, s.Platform = b.o.Name, b.o.Platform.Name()
	b.mu.Lock()
	s.Running = len(b.turns)
	b.mu.Unlock()
	return s
}

// Backoff bounds the waits between attempts to reach a platform that failed.
const (
	firstBackoff = time.Second
	maxBackoff   = 2 * time.Minute
)

// listen runs the platform's Listen until ctx ends, reconnecting after a failure with a wait
// that doubles (or as long as a rate limit asks), from the stored cursor: with no network the
// bridge says so in Settings and keeps trying.
func (b *Bridge) listen(ctx context.Context) error {
	wait := b.o.FirstBackoff
	for {
		state, err := b.rec.state()
		if err != nil {
			return err
		}
		err = b.o.Platform.Listen(ctx, state.Cursor, func(m Incoming) error { return b.deliver(ctx, m) })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			err = errors.New("the platform closed the connection")
		}
		if b.Status().Connected {
			wait = b.o.FirstBackoff // it worked a while: start again from the shortest wait
		}
		var limited *RateLimited
		if errors.As(err, &limited) {
			wait = max(wait, limited.After)
		}
		b.health.offline(err, time.Now().Add(wait))
		b.o.Logf("%s: offline (%v): retrying in %s", b.o.Name, err, wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, maxBackoff)
	}
}

// retries is how many times a send or an edit is tried when the platform asks to slow down.
const retries = 5

// patiently runs op again while the platform answers with a rate limit, waiting as asked.
func patiently(ctx context.Context, op func() error) error {
	for i := 0; ; i++ {
		err := op()
		var limited *RateLimited
		if !errors.As(err, &limited) || i == retries-1 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(limited.After):
		}
	}
}

// send posts a message, waiting out rate limits.
func (b *Bridge) send(ctx context.Context, chat string, m Outgoing) (string, error) {
	var id string
	err := patiently(ctx, func() (err error) {
		id, err = b.o.Platform.Send(ctx, chat, m)
		return err
	})
	return id, err
}
