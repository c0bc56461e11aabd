package ollama

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// boundedAnswers bounds the answers Ollama's client reads whole (its model list, a model's
// details) to llm.MaxListBody: an answer without end was read until the process ran out of
// memory, a fatal error that takes the window down. Streams (chat, generate, pull) are read
// line by line, and the client refuses a line past 8 MB itself.
type boundedAnswers struct{ next http.RoundTripper }

func (t boundedAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	switch strings.TrimSuffix(req.URL.Path, "/") {
	case "/api/chat", "/api/generate", "/api/pull", "/api/push", "/api/create":
		return resp, nil
	}
	resp.Body = &boundedBody{rc: resp.Body, left: llm.MaxListBody}
	return resp, nil
}

// boundedBody fails a read past left bytes.
type boundedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("the answer is over %d MB", llm.MaxListBody>>20)
	}
	n, err := b.rc.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return 0, fmt.Errorf("the answer is over %d MB", llm.MaxListBody>>20)
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
