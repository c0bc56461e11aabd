// Package scripted is a scripted model server on a real loopback port that speaks Ollama's,
// OpenAI's and Anthropic's wire formats, so model code, the app and the UI run without a model.
package scripted

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// TB is the part of testing.TB the server needs; nil means "close it yourself".
type TB interface {
	Cleanup(func())
}

// Model is a model the server pretends to have installed.
type Model struct {
	Name string
	// ContextLength is what the model supports; zero leaves it out of the model's metadata,
	// like a model whose GGUF does not say.
	ContextLength int
	// Capabilities beyond completion, which every model has.
	Capabilities  []llm.Capability
	Family        string
	ParameterSize string
	Size          int64
	// Digest defaults to a hash of Name; change it to simulate a re-pulled model.
	Digest string
}

func (m Model) digest() string {
	if m.Digest != "" {
		return m.Digest
	}
	sum := sha256.Sum256([]byte(m.Name))
	return hex.EncodeToString(sum[:])
}

func (m Model) has(c llm.Capability) bool {
	for _, x := range m.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// Outcome says how the server finished handling a request.
type Outcome string

const (
	OutcomePending    Outcome = ""            // still being answered
	OutcomeComplete   Outcome = "complete"    // answered in full
	OutcomeError      Outcome = "error"       // answered with an error status or an error in the stream
	OutcomeDied       Outcome = "died"        // DieAfter cut the connection
	OutcomeClientGone Outcome = "client_gone" // the client closed the connection first
)

// Call is one request the server received.
type Call struct {
	Seq    int
	Format string // wire format: "ollama", "openai", "responses" (OpenAI's Responses API) or "anthropic"
	Method string
	Path   string
	Header http.Header
	Body   []byte // raw request body
	// Request is the decoded chat request, nil for other endpoints.
	Request *llm.Request
	// Stream is whether a chat request asked for a streamed answer.
	Stream bool
	// Options are the provider-specific generation options (Ollama's "options"), as decoded JSON.
	Options map[string]any
	// Think is the raw thinking flag, nil when the request left it out.
	Think   *bool
	Outcome Outcome
}

// IsChat reports whether the call is a chat request.
func (c Call) IsChat() bool { return c.Request != nil }

// NumCtx returns Ollama's options.num_ctx, or 0 when it was not sent.
func (c Call) NumCtx() int {
	if f, ok := c.Options["num_ctx"].(float64); ok {
		return int(f)
	}
	return 0
}

// Rule answers the chat requests its match accepts.
type Rule struct {
	srv   *Server
	match func(llm.Request) bool
	reply func(llm.Request) Reply
	times int // 0: unlimited
	used  int
}

// Reply sets a fixed answer.
func (r *Rule) Reply(rep Reply) *Rule {
	return r.ReplyFunc(func(llm.Request) Reply { return rep })
}

// ReplyFunc computes the answer from the request, e.g. to echo it.
func (r *Rule) ReplyFunc(f func(llm.Request) Reply) *Rule {
	r.srv.mu.Lock()
	defer r.srv.mu.Unlock()
	r.reply = f
	return r
}

// Times limits the rule to its first n matches, so a script can answer a sequence.
func (r *Rule) Times(n int) *Rule {
	r.srv.mu.Lock()
	defer r.srv.mu.Unlock()
	r.times = n
	return r
}

// Server is a running scripted model server.
type Server struct {
	URL string

	hs      *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu      sync.Mutex
	models  []Model
	rules   []*Rule
	def     func(context.Context, llm.Request) Reply
	calls   []*Call
	changed chan struct{} // closed and replaced whenever calls change
	// loaded is what Ollama's /api/ps lists: model name to when it unloads (zero: never).
	loaded map[string]time.Time
}

// New starts a server on a free loopback port with the given models. With a non-nil t the
// server closes when the test ends.
func New(t TB, models ...Model) *Server {
	s, err := Listen("127.0.0.1:0", models...)
	if err != nil {
		panic(fmt.Sprintf("scripted: %v", err))
	}
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// Listen starts a server on addr (host:port) with the given models.
func Listen(addr string, models ...Model) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s := &Server{closing: make(chan struct{}), changed: make(chan struct{}), models: models}
	s.hs = httptest.NewUnstartedServer(s.handler())
	s.hs.Listener.Close()
	s.hs.Listener = l
	s.hs.Start()
	s.URL = s.hs.URL
	return s, nil
}

// Close stops the server, cutting replies still streaming.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.hs.CloseClientConnections()
		s.hs.Close()
	})
}

// SetModels replaces the installed models.
func (s *Server) SetModels(models ...Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = models
}

// On adds a rule for chat requests match accepts. Rules are tried in the order they were added.
func (s *Server) On(match func(llm.Request) bool) *Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Rule{srv: s, match: match}
	s.rules = append(s.rules, r)
	return r
}

// OnUser adds a rule for chat requests whose last user message contains substr.
func (s *Server) OnUser(substr string) *Rule {
	return s.On(func(req llm.Request) bool { return strings.Contains(LastUser(req), substr) })
}

// Default sets the answer to requests no rule matches. Without one they get a 500 error that
// names the unscripted message.
func (s *Server) Default(rep Reply) {
	s.DefaultFunc(func(llm.Request) Reply { return rep })
}

// DefaultFunc is Default with an answer computed from the request.
func (s *Server) DefaultFunc(f func(llm.Request) Reply) {
	s.DefaultFuncContext(func(_ context.Context, r llm.Request) Reply { return f(r) })
}

// DefaultFuncContext is DefaultFunc for an answer that takes time to come (a person typing, see
// backend/llm/relay): ctx ends when the client goes away or the server closes.
func (s *Server) DefaultFuncContext(f func(context.Context, llm.Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = f
}

// Calls returns every request received so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot()
}

// Chats returns the chat requests received so far, in order.
func (s *Server) Chats() []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.IsChat() {
			out = append(out, c)
		}
	}
	return out
}

// Wait blocks until cond holds over the recorded calls (re-checked whenever a request arrives
// or finishes), or ctx ends.
func (s *Server) Wait(ctx context.Context, cond func([]Call) bool) ([]Call, error) {
	for {
		s.mu.Lock()
		calls, ch := s.snapshot(), s.changed
		s.mu.Unlock()
		if cond(calls) {
			return calls, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return calls, fmt.Errorf("scripted: waiting for calls: %w", ctx.Err())
		}
	}
}

func (s *Server) snapshot() []Call {
	out := make([]Call, len(s.calls))
	for i, c := range s.calls {
		out[i] = *c
	}
	return out
}

// record stores a new call and returns a function that sets its outcome.
func (s *Server) record(c *Call) func(Outcome) {
	s.mu.Lock()
	c.Seq = len(s.calls)
	s.calls = append(s.calls, c)
	s.notify()
	s.mu.Unlock()
	return func(o Outcome) {
		s.mu.Lock()
		c.Outcome = o
		s.notify()
		s.mu.Unlock()
	}
}

func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) model(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if normalizeName(m.Name) == normalizeName(name) {
			return m, true
		}
	}
	return Model{}, false
}

func (s *Server) modelList() []Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Model(nil), s.models...)
}

// pick returns the scripted answer to req, or false when nothing is scripted for it.
func (s *Server) pick(ctx context.Context, req llm.Request) (Reply, bool) {
	s.mu.Lock()
	var f func(llm.Request) Reply
	for _, r := range s.rules {
		if r.reply == nil || (r.times > 0 && r.used >= r.times) || !r.match(req) {
			continue
		}
		r.used++
		f = r.reply
		break
	}
	def := s.def
	s.mu.Unlock()
	if f != nil {
		return f(req), true
	}
	if def == nil {
		return Reply{}, false
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	return def(ctx, req), true
}

// hold waits until release is closed; false when the client went away or the server closes.
func (s *Server) hold(ctx context.Context, release <-chan struct{}) bool {
	select {
	case <-release:
		return true
	case <-ctx.Done():
		return false
	case <-s.closing:
		return false
	}
}

// sleep waits d, and reports false when the client left or the server is closing first.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.closing:
		return false
	}
}

// LastUser returns what the user wrote in the last user message of req: its content without
// the <system-reminder> blocks Tofu appends (the environment), as a model reads past them.
func LastUser(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return withoutReminders(req.Messages[i].Content)
		}
	}
	return ""
}

func withoutReminders(s string) string {
	const open, end = "<system-reminder>", "</system-reminder>"
	for {
		i := strings.Index(s, open)
		j := strings.Index(s, end)
		if i < 0 || j < i {
			return s
		}
		s = strings.TrimRight(s[:i], "\n") + s[j+len(end):]
	}
}

// normalizeName adds Ollama's implicit ":latest" tag.
func normalizeName(name string) string {
	last := name[strings.LastIndex(name, "/")+1:]
	if !strings.Contains(last, ":") {
		return name + ":latest"
	}
	return name
}

// outcomeWriter remembers how a handler ended its answer.
type outcomeWriter struct {
	http.ResponseWriter
	status             int
	gone, died, failed bool
}

func (w *outcomeWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *outcomeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *outcomeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *outcomeWriter) outcome() Outcome {
	switch {
	case w.died:
		return OutcomeDied
	case w.gone:
		return OutcomeClientGone
	case w.failed || w.status >= 400:
		return OutcomeError
	default:
		return OutcomeComplete
	}
}
