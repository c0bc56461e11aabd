package llm

import (
	"context"
	"encoding/json"
)

// Wire formats of request bodies, as TapRequest names them: a trace decodes a body by its format.
const (
	WireOllama    = "ollama"    // POST /api/chat
	WireOpenAI    = "openai"    // POST /chat/completions
	WireAnthropic = "anthropic" // POST /v1/messages
)

// Sent is one request body as a provider client sent it, with what it was encoded from: the
// request as the client received it (after the gateway and the router chose the model) and the
// client's own inputs to the encoding (Params: its settings, the model's capabilities), so the
// same bytes can be encoded again (each client's Encode function).
type Sent struct {
	Format  string
	Body    []byte
	Request Request
	Params  json.RawMessage
}

type requestTapKey struct{}

// WithRequestTap returns a context whose provider calls hand f every request they send (each
// attempt of a retried call too). The trace fingerprints what was sent, not what Tofu meant to
// send.
func WithRequestTap(ctx context.Context, f func(Sent)) context.Context {
	return context.WithValue(ctx, requestTapKey{}, f)
}

// TapRequest is called by a provider client with the body it is about to send.
func TapRequest(ctx context.Context, s Sent) {
	if f, ok := ctx.Value(requestTapKey{}).(func(Sent)); ok {
		f(s)
	}
}

// Tapping says whether ctx has a tap: a client that must encode a body only for it asks first.
func Tapping(ctx context.Context) bool {
	_, ok := ctx.Value(requestTapKey{}).(func(Sent))
	return ok
}
