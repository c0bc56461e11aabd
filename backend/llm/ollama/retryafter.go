package ollama

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// Ollama's client turns an error answer into api.StatusError without its headers, so the
// server's Retry-After would be lost; the transport reads it on the way in and leaves it where
// the call that sent the request finds it. One rule for every provider: the router waits what
// the server asked (OpenAI and Anthropic read the header from their own responses).

// retryAfterKey marks a request context that wants the Retry-After of an error answer.
type retryAfterKey struct{}

// retryAfterSlot holds the wait an error answer asked for, in nanoseconds.
type retryAfterSlot struct{ d atomic.Int64 }

func (s *retryAfterSlot) get() time.Duration { return time.Duration(s.d.Load()) }

// withRetryAfter returns ctx with a slot the transport fills.
func withRetryAfter(ctx context.Context) (context.Context, *retryAfterSlot) {
	s := &retryAfterSlot{}
	return context.WithValue(ctx, retryAfterKey{}, s), s
}

// retryAfterTransport records the Retry-After of error answers in the request's slot.
type retryAfterTransport struct{ next http.RoundTripper }

func (t retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && resp.StatusCode >= 400 {
		if s, ok := req.Context().Value(retryAfterKey{}).(*retryAfterSlot); ok {
			s.d.Store(int64(llm.RetryAfter(resp.Header, time.Now())))
		}
	}
	return resp, err
}

// withRetryAfterTransport returns a copy of c whose transport records Retry-After (and bounds
// the answers read whole, bounded.go); c itself (perhaps the caller's) is left as it is.
func withRetryAfterTransport(c *http.Client) *http.Client {
	cp := *c
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cp.Transport = retryAfterTransport{next: boundedAnswers{next: next}}
	return &cp
}
