package scripted

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// handler routes each request to its wire format and records it: /v1/messages (and /v1/models
// with an anthropic-version header) is Anthropic's, /v1/responses OpenAI's Responses API, other /v1/
// paths OpenAI's chat completions, the rest Ollama's.
func (s *Server) handler() http.Handler {
	ollama, openai, anthropic := s.ollamaMux(), s.openaiMux(), s.anthropicMux()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		c := &Call{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
		var h http.Handler
		switch p := r.URL.Path; {
		case p == "/v1/messages" || (p == "/v1/models" && r.Header.Get("anthropic-version") != ""):
			c.Format, h = "anthropic", anthropic
			if r.Method == http.MethodPost {
				decodeAnthropicChat(c)
			}
		case p == "/v1/responses":
			c.Format, h = "responses", openai
			if r.Method == http.MethodPost {
				decodeResponses(c)
			}
		case strings.HasPrefix(p, "/v1/"):
			c.Format, h = "openai", openai
			if r.Method == http.MethodPost && p == "/v1/chat/completions" {
				decodeOpenAIChat(c)
			}
		default:
			c.Format, h = "ollama", ollama
			if r.Method == http.MethodPost && p == "/api/chat" {
				decodeOllamaChat(c)
			}
		}
		finish := s.record(c)
		rec := &outcomeWriter{ResponseWriter: w}
		// Deferred so the outcome is stored even when a reset aborts the handler with a panic.
		defer func() { finish(rec.outcome()) }()
		h.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), callKey{}, c.Seq)))
	})
}

type callKey struct{}

func callSeq(r *http.Request) int {
	n, _ := r.Context().Value(callKey{}).(int)
	return n
}

// errorWriter writes an error answer in a wire format.
type errorWriter func(w http.ResponseWriter, status int, msg string)

// prepare picks the answer to a chat request and deals with what comes before a body: no
// script, an error status, a slow first byte. It returns false when the request is answered.
func (s *Server) prepare(w http.ResponseWriter, r *http.Request, req llm.Request, format string, fail errorWriter, errorFor func(int) string) (answer, bool) {
	rep, ok := s.pick(r.Context(), req)
	if !ok {
		fail(w, http.StatusInternalServerError, fmt.Sprintf("scripted: no scripted reply for %q", LastUser(req)))
		return answer{}, false
	}
	a := resolve(rep, req, format, callSeq(r))
	if a.Status >= 400 {
		if a.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int((a.RetryAfter+time.Second-1)/time.Second)))
			if format == "openai" {
				w.Header().Set("Retry-After-Ms", strconv.FormatInt(a.RetryAfter.Milliseconds(), 10))
			}
		}
		msg := a.Error
		if msg == "" {
			msg = errorFor(a.Status)
		}
		fail(w, a.Status, msg)
		return answer{}, false
	}
	if a.firstByte > 0 && !s.sleep(r.Context(), a.firstByte) {
		w.(*outcomeWriter).gone = true
		return answer{}, false
	}
	return a, true
}

// die resets the connection (RST where the connection allows it) and ends the handler.
func die(w http.ResponseWriter) {
	ow := w.(*outcomeWriter)
	ow.died = true
	ow.Flush()
	if hj, ok := ow.ResponseWriter.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			conn.Close()
		}
	}
	panic(http.ErrAbortHandler)
}

// streamer writes a streamed body and notices a client that left.
type streamer struct {
	w   http.ResponseWriter
	s   *Server
	r   *http.Request
	err bool
}

func (st *streamer) write(b []byte) bool {
	if _, err := st.w.Write(b); err != nil {
		st.w.(*outcomeWriter).gone = true
		st.err = true
		return false
	}
	st.w.(*outcomeWriter).Flush()
	return true
}

// sse starts a server-sent events stream.
func (s *Server) sse(w http.ResponseWriter, r *http.Request) *streamer {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &streamer{w: w, s: s, r: r}
}

// pieces sends a's pieces one by one as the script says: it waits before each, cuts the stream
// or resets the connection where the fault falls (also after the last piece). It returns false
// when the stream has ended: cut, the client gone, or send failed.
func (st *streamer) pieces(a *answer, send func(p piece) bool) bool {
	for i, p := range a.pieces {
		switch a.stop(i) {
		case "die":
			die(st.w)
		case "cut":
			return false
		}
		if !st.pause(a, i) || !send(p) {
			return false
		}
	}
	if a.dieAtEnd() {
		die(st.w)
	}
	return true
}

// fail marks the call as ended by an error inside the stream.
func (st *streamer) fail() { st.w.(*outcomeWriter).failed = true }

// pause waits for Hold before piece 1, and TokenDelay before every piece i > 0.
func (st *streamer) pause(a *answer, i int) bool {
	if i == 1 && a.Hold != nil && !st.s.hold(st.r.Context(), a.Hold) {
		st.w.(*outcomeWriter).gone = true
		return false
	}
	if i > 0 && !st.s.sleep(st.r.Context(), a.TokenDelay) {
		st.w.(*outcomeWriter).gone = true
		return false
	}
	return true
}
