package llm

import "context"

// Wire formats of request bodies, as TapRequest names them: a trace decodes a body by its format.
const (
	WireOllama    = "ollama"    // POST /api/chat
	WireOpenAI    = "openai"    // POST /chat/completions
	WireAnthropic = "anthropic" // POST /v1/messages
)

type requestTapKey struct{}

// WithRequestTap returns a context whose provider calls hand f the exact body of every request
// they send (each attempt of a retried call too), in the format named. The trace fingerprints
// what was sent, not what Tofu meant to send.
func WithRequestTap(ctx context.Context, f func(format string, body []byte)) context.Context {
	return context.WithValue(ctx, requestTapKey{}, f)
}

// TapRequest is called by a provider client with the body it is about to send.
func TapRequest(ctx context.Context, format string, body []byte) {
	if f, ok := ctx.Value(requestTapKey{}).(func(string, []byte)); ok {
		f(format, body)
	}
}

// Tapping says whether ctx has a tap: a client that must encode a body only for it asks first.
func Tapping(ctx context.Context) bool {
	_, ok := ctx.Value(requestTapKey{}).(func(string, []byte))
	return ok
}
