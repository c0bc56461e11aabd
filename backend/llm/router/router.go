// Package router puts retries, API-key rotation and a fallback chain in front of model
// providers, so a flaky network or an overloaded server costs the user a wait, not a reply.
package router

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// Target is one link of the fallback chain: a provider and the model it runs.
type Target struct {
	// Provider serves the target when it has no Keys.
	Provider llm.Provider
	// Model is sent as Request.Model; empty keeps the caller's.
	Model string
	// Name names the target in reports and in the circuit breaker ("Name/model"); empty takes
	// the provider's Name. Two targets of one provider type (two Ollama servers) need names of
	// their own, or one's failures would count against the other.
	Name string
	// Keys are API keys to rotate through; NewProvider builds the provider for one of them
	// (once, on first use). Keys never appear in reports, only their index.
	Keys        []string
	NewProvider func(key string) llm.Provider
}

// Policy bounds the retries. Zero fields take the defaults of DefaultPolicy.
type Policy struct {
	// MaxAttempts is how many times one target is tried when it fails before its first event
	// (429, 5xx, unreachable). Keys that fail authentication do not count.
	MaxAttempts int
	// MaxRestarts is how many times one target re-runs a call whose stream broke after it
	// started (or ended without its done event).
	MaxRestarts int
	// BaseBackoff doubles with every failure of the call on a target, up to MaxBackoff.
	BaseBackoff, MaxBackoff time.Duration
	// Jitter is the fraction of a backoff drawn at random: the wait is in [(1-Jitter)·d, d].
	// A negative value turns jitter off.
	Jitter float64
	// MaxWait is the longest Retry-After honoured; a key asked to wait longer is skipped and,
	// when no key is left, the call falls back to the next target.
	MaxWait time.Duration
	// BenchAfter consecutive failures bench a key for BenchFor: other keys are preferred
	// until then. A key refused as unauthorized is not used again for AuthBenchFor.
	BenchAfter             int
	BenchFor, AuthBenchFor time.Duration
	// OpenAfter consecutive failures of a target (across calls, see Health) open its circuit:
	// while a later target can take the call, it is skipped for OpenFor, doubling up to
	// MaxOpenFor while probes keep failing. A call that gives a target up opens it too. A
	// negative OpenAfter turns the breaker off: every call tries the chain afresh.
	OpenAfter           int
	OpenFor, MaxOpenFor time.Duration
}

// DefaultPolicy is the policy used for zero fields.
var DefaultPolicy = Policy{
	MaxAttempts:  4,
	MaxRestarts:  16,
	BaseBackoff:  500 * time.Millisecond,
	MaxBackoff:   20 * time.Second,
	Jitter:       0.5,
	MaxWait:      60 * time.Second,
	BenchAfter:   3,
	BenchFor:     2 * time.Minute,
	AuthBenchFor: 15 * time.Minute,
	OpenAfter:    3,
	OpenFor:      30 * time.Second,
	MaxOpenFor:   5 * time.Minute,
}

func (p Policy) withDefaults() Policy {
	d := DefaultPolicy
	if p.MaxAttempts > 0 {
		d.MaxAttempts = p.MaxAttempts
	}
	if p.MaxRestarts > 0 {
		d.MaxRestarts = p.MaxRestarts
	}
	if p.BaseBackoff > 0 {
		d.BaseBackoff = p.BaseBackoff
	}
	if p.MaxBackoff > 0 {
		d.MaxBackoff = p.MaxBackoff
	}
	if p.Jitter != 0 {
		d.Jitter = max(0, min(p.Jitter, 1))
	}
	if p.MaxWait > 0 {
		d.MaxWait = p.MaxWait
	}
	if p.BenchAfter > 0 {
		d.BenchAfter = p.BenchAfter
	}
	if p.BenchFor > 0 {
		d.BenchFor = p.BenchFor
	}
	if p.AuthBenchFor > 0 {
		d.AuthBenchFor = p.AuthBenchFor
	}
	if p.OpenAfter != 0 {
		d.OpenAfter = p.OpenAfter
	}
	if p.OpenFor > 0 {
		d.OpenFor = p.OpenFor
	}
	if p.MaxOpenFor > 0 {
		d.MaxOpenFor = p.MaxOpenFor
	}
	return d
}

// Clock is the time the router waits on; tests replace it to run backoffs instantly.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or returns ctx's error as soon as ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Option configures a Router.
type Option func(*Router)

// WithPolicy sets the retry policy.
func WithPolicy(p Policy) Option { return func(r *Router) { r.policy = p.withDefaults() } }

// WithClock replaces the wall clock.
func WithClock(c Clock) Option { return func(r *Router) { r.clock = c } }

// WithRand sets the source of jitter, a function returning values in [0, 1). The router calls
// it under its lock, so it need not be safe for concurrent use.
func WithRand(f func() float64) Option { return func(r *Router) { r.rand = f } }

// WithReport receives the report of every call, when its stream ends.
func WithReport(f func(CallReport)) Option { return func(r *Router) { r.report = f } }

// WithHealth shares h (the targets' circuit breakers) with other routers: the gateway gives
// all of its routers one, so every turn and sub-agent of the app skips a dead target once any
// of them has found it dead. Without it a router keeps its own.
func WithHealth(h *Health) Option { return func(r *Router) { r.health = h } }

// WithName sets what Name returns (default "router").
func WithName(name string) Option { return func(r *Router) { r.name = name } }

// Router is an llm.Provider that runs each call on a chain of targets. It is safe for
// concurrent use; key health is shared by all calls.
type Router struct {
	name    string
	targets []*target
	policy  Policy
	clock   Clock
	report  func(CallReport)
	health  *Health

	mu   sync.Mutex // guards rand, vision and the key state of every target
	rand func() float64
	// vision is whether a target's model takes images (seesImages), by target and model.
	vision map[visionKey]bool
}

// New returns a router over targets, tried in order.
func New(targets []Target, opts ...Option) (*Router, error) {
	if len(targets) == 0 {
		return nil, errors.New("router: no targets")
	}
	r := &Router{name: "router", policy: DefaultPolicy, clock: realClock{}, rand: rand.Float64, health: NewHealth()}
	for i, t := range targets {
		tg, err := newTarget(i, t)
		if err != nil {
			return nil, err
		}
		r.targets = append(r.targets, tg)
	}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}

// Name implements llm.Provider.
func (r *Router) Name() string { return r.name }

// Models merges the models of every target: all of a provider's models for a target without
// a Model, that one model (with the provider's metadata when it lists it) otherwise. It fails
// only when no target answers and none names its model.
func (r *Router) Models(ctx context.Context) ([]llm.ModelInfo, error) {
	type key struct{ provider, model string }
	seen := map[key]bool{}
	var out []llm.ModelInfo
	var firstErr error
	add := func(m llm.ModelInfo) {
		k := key{m.Provider, m.Name}
		if !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
	for _, t := range r.targets {
		p := r.anyProvider(t)
		models, err := p.Models(ctx)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if t.model == "" {
			for _, m := range models {
				add(m)
			}
			continue
		}
		info := llm.ModelInfo{Name: t.model, Provider: p.Name()}
		for _, m := range models {
			if m.Name == t.model {
				info = m
				break
			}
		}
		add(info)
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// anyProvider returns a provider of t to ask for models: its first key not refused.
func (r *Router) anyProvider(t *target) llm.Provider {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	for i := range t.keys {
		if !t.keys[i].authFailed(now) {
			return t.provider(i)
		}
	}
	return t.provider(0)
}

// backoff returns the jittered wait before the n-th retry (n ≥ 1) of a call on a target.
func (r *Router) backoff(n int) time.Duration {
	d := r.policy.BaseBackoff
	for i := 1; i < n && d < r.policy.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, r.policy.MaxBackoff)
	r.mu.Lock()
	f := r.rand()
	r.mu.Unlock()
	return d - time.Duration(float64(d)*r.policy.Jitter*f)
}

// startIndex is where a call for model starts the chain: the first target that serves it
// (names it, or serves any model), or the head of the chain. A head that serves any model is
// where every call starts, even when a fallback runs a model of the same name elsewhere.
func (r *Router) startIndex(model string) int {
	for i, t := range r.targets {
		if t.model == "" || (model != "" && t.model == model) {
			return i
		}
	}
	return 0
}

// CallReport says what one call went through, for the log.
type CallReport struct {
	Model    string    `json:"model"`              // the model the caller asked for
	Target   string    `json:"target"`             // "provider/model" that answered, or the last one tried
	Attempts []Attempt `json:"attempts"`           // every request sent, in order
	Restarts int       `json:"restarts,omitempty"` // EventRetry events sent downstream
	Fallback int       `json:"fallback,omitempty"` // EventFallback events sent downstream
	// Outcome is "ok", "stopped" (the consumer stopped reading), or the kind of the error the
	// call ended with.
	Outcome  string        `json:"outcome"`
	Duration time.Duration `json:"duration"`
	// Request fingerprints the body of the last request sent (filled by the caller that
	// tapped it, see llm.WithRequestTap): `tofu trace verify` checks the log against it.
	Request *RequestPrint `json:"request,omitempty"`
}

// RequestPrint is the fingerprint of one request body as sent, and where its bytes are kept.
type RequestPrint struct {
	SHA256 string `json:"sha256"` // hex sha256 of the exact bytes sent
	Bytes  int    `json:"bytes"`
	Format string `json:"format"`         // llm.WireOllama, WireOpenAI or WireAnthropic
	Blob   string `json:"blob,omitempty"` // the store's blob of the bytes (gzip), when kept
	// Built is what the request was built from besides the log: with it the request is built
	// again and fingerprinted (agent.Rebuild), so its bytes need not be kept.
	Built *Built `json:"built,omitempty"`
}

// Built is what one request was built from besides the session's log. Texts are blobs named
// by their sha256 (store.RequestPartKey), each kept once however many requests use it.
type Built struct {
	Upto uint64 `json:"upto"` // the log's active path up to this event
	// Phase is the start event of the autonomous run's planner or critic phase that made the
	// call: its requests see the phase's own view of the log.
	Phase  uint64 `json:"phase,omitempty"`
	System string `json:"system,omitempty"` // blob: the system prompt
	Tools  string `json:"tools,omitempty"`  // blob: the tool specs (JSON)
	// L2 says summaries (compaction events) apply; Instructions is the blob of the instruction
	// files a summary re-injects.
	L2           bool   `json:"l2,omitempty"`
	Instructions string `json:"instructions,omitempty"`
	// Augmented is the blob of the messages a paper session's reader gave the turn (the
	// retrieved passages): they are not in the log.
	Augmented string `json:"augmented,omitempty"`
	// Context is the blob of the context manager's config (JSON); L1 the state its view was
	// built from. Without Context the log was sent as it is.
	Context string     `json:"context,omitempty"`
	L1      *ViewState `json:"l1,omitempty"`
	// Summary marks the call of an L2 summariser: its request is the summary request of the
	// view at Upto (the compaction in force applied), under the config in Context, with the
	// summariser's prompt in System.
	Summary  *SummaryCall    `json:"summary,omitempty"`
	Settings RequestSettings `json:"settings"`
	// Params are the provider client's own inputs to the encoding (llm.Sent.Params).
	Params json.RawMessage `json:"params,omitempty"`
}

// SummaryCall is what an L2 summary request depends on besides the view and the config.
type SummaryCall struct {
	Window int `json:"window"` // the context window the summary was sized for (0: unknown)
}

// ViewState is the context manager's L1 state (compact.State without its informational cost
// model).
type ViewState struct {
	Mark  int    `json:"mark"`
	Prev  int    `json:"prev,omitempty"`
	Epoch int    `json:"epoch"`
	Base  string `json:"base,omitempty"`
	Lag   int    `json:"lag,omitempty"`
	// Left is the calls the turn could still make (compact.State.Left), which bounds a move's
	// payback.
	Left int `json:"left,omitempty"`
}

// RequestSettings are the request's own fields as the provider client received them (the model
// the gateway and the router chose, the thinking switch): everything but messages and tools.
type RequestSettings struct {
	Model         string   `json:"model"`
	ContextWindow int      `json:"context_window,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	Think         bool     `json:"think,omitempty"`
	Thinking      string   `json:"thinking,omitempty"`
}

// SettingsOf are req's settings.
func SettingsOf(req llm.Request) RequestSettings {
	return RequestSettings{Model: req.Model, ContextWindow: req.ContextWindow, MaxTokens: req.MaxTokens,
		Temperature: req.Temperature, Think: req.Think, Thinking: req.Thinking}
}

// Apply sets req's settings to s.
func (s RequestSettings) Apply(req *llm.Request) {
	req.Model, req.ContextWindow, req.MaxTokens = s.Model, s.ContextWindow, s.MaxTokens
	req.Temperature, req.Think, req.Thinking = s.Temperature, s.Think, s.Thinking
}

// Sent counts the attempts that sent a request (not those skipped on an open circuit).
func (r CallReport) Sent() int {
	n := 0
	for _, a := range r.Attempts {
		if !a.Skipped {
			n++
		}
	}
	return n
}

// Attempt is one request a call sent to a target, or a target it skipped.
type Attempt struct {
	Target string        `json:"target"`         // "provider/model"
	Key    int           `json:"key"`            // index of the API key, -1 without keys
	Wait   time.Duration `json:"wait,omitempty"` // slept before sending it
	// Skipped says no request was sent: the target's circuit was open (Message says why).
	Skipped bool `json:"skipped,omitempty"`
	Probe   bool `json:"probe,omitempty"` // the request tested an open circuit
	Events  int  `json:"events"`          // events it delivered downstream
	// Fault is the kind of failure ("" when it completed); a stream that ended without its
	// done event counts as ErrServer. Status is the HTTP status, when there was one.
	Fault   llm.ErrorKind `json:"fault,omitempty"`
	Status  int           `json:"status,omitempty"`
	Message string        `json:"message,omitempty"`
	// Next is what the router did about it: "retry" (the same key again, after Wait of the
	// next attempt), "rotate_key" (another key), "restart" (EventRetry), "fallback", or ""
	// when the call ended there.
	Next string `json:"next,omitempty"`
}

type reportKey struct{}

// ReportTo returns a context whose calls through any Router also deliver their report to f,
// so a caller can file it with the conversation it belongs to.
func ReportTo(ctx context.Context, f func(CallReport)) context.Context {
	return context.WithValue(ctx, reportKey{}, f)
}
