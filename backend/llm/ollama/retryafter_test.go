package ollama_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// The Ollama provider honours Retry-After like the OpenAI and Anthropic ones (the soak saw it
// wait 0.3–1 s where the server said 1–3 s): the error carries the server's wait, for the
// router to sleep on.
func TestStreamErrorCarriesRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply scripted.Reply
		kind  llm.ErrorKind
		want  time.Duration
	}{
		{"429", scripted.Reply{Fault: scripted.FaultRateLimit, RetryAfter: 3 * time.Second}, llm.ErrRateLimited, 3 * time.Second},
		{"529 overloaded", scripted.Reply{Fault: scripted.FaultOverloaded, RetryAfter: 2 * time.Second}, llm.ErrServer, 2 * time.Second},
		{"500 without Retry-After", scripted.Reply{Fault: scripted.FaultServerError}, llm.ErrServer, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := start(t, plain)
			srv.Default(tt.reply)
			_, err := collect(p.Stream(t.Context(), userReq(plain.Name, "hi")))
			e := asError(t, err)
			if e.Kind != tt.kind || e.RetryAfter != tt.want {
				t.Errorf("kind %s, RetryAfter %s; want %s, %s (%v)", e.Kind, e.RetryAfter, tt.kind, tt.want, err)
			}
		})
	}
}

// A caller's HTTP client is wrapped, not changed: its transport stays its own.
func TestRetryAfterLeavesCallersClient(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, plain)
	srv.Default(scripted.Reply{Fault: scripted.FaultRateLimit, RetryAfter: time.Second})
	c := &http.Client{}
	p := ollama.New(srv.URL, ollama.WithHTTPClient(c))
	_, err := collect(p.Stream(t.Context(), userReq(plain.Name, "hi")))
	if e := asError(t, err); e.RetryAfter != time.Second {
		t.Errorf("RetryAfter %s, want 1s", e.RetryAfter)
	}
	if c.Transport != nil {
		t.Errorf("the caller's client got transport %T", c.Transport)
	}
}
