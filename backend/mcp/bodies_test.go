package mcp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/testtools"
)

// A remote server's JSON answer without end made the transport hold all of it (a fatal
// out-of-memory, as a stdio server's endless line): past maxMessage the server is
// disconnected, and its error says why. The answer stops 8 MB past the bound, so that
// without it the test fails instead of eating the memory.
func TestRemoteAnswerIsBounded(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	chunk := bytes.Repeat([]byte{'a'}, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":0,"result":"`))
		for range (maxMessage >> 20) + 8 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	w := newWatched(t, Options{}, map[string]config.MCPServer{"http": {Type: config.MCPHTTP, URL: srv.URL + "/mcp"}})
	st := w.until(t, "it failed", func(s map[string]State) bool { return s["http"].Status == StatusFailed })["http"]
	mustContain(t, "http", st.Error, "an answer passed 64 MB")
}

// An event stream is bounded by event: events of any number pass, one past maxMessage (its
// lines together) does not; the SSE transport reads a line, and an event, whole.
func TestEventStreamIsBoundedByEvent(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	event := "data: " + strings.Repeat("a", 1<<20) + "\r\n\r\n"
	many := strings.Repeat(event, (maxMessage>>20)+8) // more than the bound in all
	if n, err := io.Copy(io.Discard, &boundedBody{rc: io.NopCloser(strings.NewReader(many)), events: true}); err != nil {
		t.Fatalf("events of 1 MB: %v after %d bytes", err, n)
	}
	long := strings.Repeat("data: "+strings.Repeat("a", 1<<20)+"\n", (maxMessage>>20)+8) // one event
	if _, err := io.Copy(io.Discard, &boundedBody{rc: io.NopCloser(strings.NewReader(long)), events: true}); !errors.Is(err, errAnswerTooLarge) {
		t.Fatalf("one event past the bound: %v", err)
	}
	if _, err := io.Copy(io.Discard, &boundedBody{rc: io.NopCloser(strings.NewReader(many))}); !errors.Is(err, errAnswerTooLarge) {
		t.Fatalf("a body that is not an event stream, past the bound: %v", err)
	}
}
