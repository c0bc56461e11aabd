package router

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// The faults a call can meet, as providers report them.
const (
	fault429     = "429 Retry-After"
	fault500     = "500"
	fault529     = "529 overloaded"
	faultReset   = "reset mid-stream"
	faultCut     = "cut without done"
	faultEmpty   = "empty stream"
	faultSlow    = "slow first event"
	faultOutage  = "outage (fallback)"
	turnsPerConv = 20
	faultRate    = 0.3
)

var faultKinds = []string{fault429, fault500, fault529, faultReset, faultCut, faultEmpty, faultSlow}

// server plays a model behind several providers (two API keys and a fallback model): it keys
// its script on the turn in the last user message, so whichever provider gets an attempt plays
// the next step of that turn.
type server struct {
	t     *testing.T
	seed  uint64
	clock *fakeClock
	turns []turnScript

	mu       sync.Mutex
	attempts map[int]int
}

type turnScript struct {
	text   string
	call   *llm.ToolCall
	steps  []step // faults, then the good answer
	faults []string
	// outage: the primary fails every attempt (503) and the fallback answers (steps holds
	// only the good answer).
	outage bool
}

func newServer(t *testing.T, seed uint64, clock *fakeClock) *server {
	rng := rand.New(rand.NewPCG(seed, 0x70f0))
	s := &server{t: t, seed: seed, clock: clock, attempts: map[int]int{}}
	for i := range turnsPerConv {
		s.turns = append(s.turns, scriptTurn(rng, i))
	}
	return s
}

// scriptTurn writes turn i's answer and, for 30% of turns, the faults before it.
func scriptTurn(rng *rand.Rand, i int) turnScript {
	words := []string{"tofu", "{", "}", "paper", "ß", "🙂", "retry", "\n", "model", "the", "of", "``", "\""}
	var b strings.Builder
	for range 5 + rng.IntN(60) {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	ts := turnScript{text: fmt.Sprintf("turn %d: %s", i, b.String())}
	events := reply(ts.text, 1+rng.IntN(12))
	if rng.IntN(4) == 0 {
		ts.call = &llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "search", Arguments: json.RawMessage(`{"q":"{brace}"}`)}
		n := len(events)
		events = append(events[:n-2:n-2], llm.Event{Kind: llm.EventToolCall, ToolCall: ts.call}, events[n-2], events[n-1])
	}
	good := step{events: events}
	if rng.Float64() >= faultRate {
		ts.steps = []step{good}
		return ts
	}
	if rng.IntN(10) == 0 {
		// The primary target fails every attempt it makes: the fallback answers.
		ts.faults, ts.outage = []string{faultOutage}, true
		ts.steps = []step{good}
		return ts
	}
	for range 1 + rng.IntN(3) {
		kind := faultKinds[rng.IntN(len(faultKinds))]
		ts.faults = append(ts.faults, kind)
		k := 1 + rng.IntN(len(events)-1) // events delivered before a break
		switch kind {
		case fault429:
			ts.steps = append(ts.steps, rateLimited(time.Duration(1+rng.IntN(10))*time.Second))
		case fault500:
			ts.steps = append(ts.steps, fail(llm.ErrServer, 500))
		case fault529:
			ts.steps = append(ts.steps, step{err: &llm.Error{Kind: llm.ErrServer, StatusCode: 529, Message: "overloaded"}})
		case faultReset:
			ts.steps = append(ts.steps, step{events: events[:k], after: &llm.Error{Kind: llm.ErrServer, Message: "connection reset by peer"}})
		case faultCut:
			ts.steps = append(ts.steps, step{events: events[:k], noDone: true})
		case faultEmpty:
			ts.steps = append(ts.steps, step{})
		case faultSlow:
			// Slow is not a failure: this attempt answers, late.
			ts.steps = append(ts.steps, step{delay: time.Duration(1+rng.IntN(120)) * time.Second, events: events})
			return ts
		}
	}
	ts.steps = append(ts.steps, good)
	return ts
}

func (s *server) provider(name string) *fake {
	return &fake{name: name, clock: s.clock, next: func(_ int, req llm.Request) step {
		var turn int
		last := req.Messages[len(req.Messages)-1].Content
		if _, err := fmt.Sscanf(last, "turn %d", &turn); err != nil {
			s.t.Errorf("seed %d: unexpected request %q", s.seed, last)
			return fail(llm.ErrBadRequest, 400)
		}
		// The history must hold every earlier answer exactly once, intact.
		for i := range turn {
			if got := req.Messages[2*i+1].Content; got != s.turns[i].text {
				s.t.Errorf("seed %d turn %d: history holds answer %d as %q, want %q", s.seed, turn, i, got, s.turns[i].text)
			}
		}
		if s.turns[turn].outage {
			if name == "cloud" {
				return fail(llm.ErrServer, 503)
			}
			return s.turns[turn].steps[0]
		}
		s.mu.Lock()
		n := s.attempts[turn]
		s.attempts[turn]++
		s.mu.Unlock()
		steps := s.turns[turn].steps
		return steps[min(n, len(steps)-1)]
	}}
}

// TestFaultInjection runs a 20-call conversation over 200 seeds; 30% of calls meet 1 to 3
// random faults (or an outage of the primary model), and every answer must arrive intact.
func TestFaultInjection(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	var calls, attempts, skips, retries, fallbacks int
	for seed := range uint64(200) {
		clock := newClock()
		srv := newServer(t, seed, clock)
		keys := map[string]*fake{"key-a": srv.provider("cloud"), "key-b": srv.provider("cloud")}
		rng := rand.New(rand.NewPCG(seed, 1))
		r, reports := newTestRouter(t, clock,
			Target{Model: "big", Keys: []string{"key-a", "key-b"}, NewProvider: func(k string) llm.Provider { return keys[k] }},
			Target{Provider: srv.provider("local"), Model: "small"})
		r.rand = rng.Float64

		var history []llm.Message
		for i, ts := range srv.turns {
			history = append(history, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("turn %d", i)})
			o := consume(r.Stream(t.Context(), llm.Request{Model: "big", Messages: history}))
			if o.err != nil || o.text != ts.text || o.done != 1 || !sameCall(o.calls, ts.call) {
				t.Fatalf("seed %d turn %d (faults %v): got %q, %d done, calls %v, err %v; want %q, 1 done, call %v",
					seed, i, ts.faults, o.text, o.done, o.calls, o.err, ts.text, ts.call)
			}
			history = append(history, llm.Message{Role: llm.RoleAssistant, Content: o.text, ToolCalls: o.calls})
			rep := (*reports)[i]
			// Every scripted step is one request sent, whichever target it went to (a primary
			// whose circuit is open is skipped without one).
			sent := rep.Sent()
			if ts.outage {
				sent -= primarySent(rep) // the outage's 503s, as many as the breaker allows
			}
			if sent != len(ts.steps) || rep.Restarts != len(o.retries) {
				t.Fatalf("seed %d turn %d: report %+v for faults %v", seed, i, rep, ts.faults)
			}
			for _, f := range ts.faults {
				seen[f]++
			}
			calls++
			attempts += rep.Sent()
			skips += len(rep.Attempts) - rep.Sent()
			retries += rep.Restarts
			fallbacks += rep.Fallback
		}
	}
	kinds := make([]string, 0, len(seen))
	for k := range seen {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		t.Logf("%-18s %5d", k, seen[k])
	}
	t.Logf("%d calls, %d attempts, %d skips of an open circuit, %d EventRetry, %d fallbacks: every answer intact",
		calls, attempts, skips, retries, fallbacks)
	if fallbacks == 0 || retries == 0 {
		t.Errorf("the seeds never exercised a fallback (%d) or a restart (%d)", fallbacks, retries)
	}
}

// primarySent counts the requests a call sent to the primary ("cloud/big").
func primarySent(rep CallReport) int {
	n := 0
	for _, a := range rep.Attempts {
		if !a.Skipped && a.Target == "cloud/big" {
			n++
		}
	}
	return n
}

func sameCall(got []llm.ToolCall, want *llm.ToolCall) bool {
	if want == nil {
		return len(got) == 0
	}
	return len(got) == 1 && got[0].ID == want.ID && string(got[0].Arguments) == string(want.Arguments)
}

// static streams the same events on every call, with no bookkeeping, for benchmarks.
type static struct{ events []llm.Event }

func (s static) Name() string                                    { return "static" }
func (s static) Models(context.Context) ([]llm.ModelInfo, error) { return nil, nil }
func (s static) Stream(ctx context.Context, _ llm.Request) llm.Stream {
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range s.events {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// BenchmarkRouterOverhead streams N events directly and through a router; the difference per
// op is the router's cost per call (N=1) and, divided by N, per event.
func BenchmarkRouterOverhead(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		events := reply(strings.Repeat("x", max(n-2, 0)), 1) // text deltas, usage, done
		p := static{events: events[len(events)-n:]}
		r, err := New([]Target{{Provider: p, Model: "m"}})
		if err != nil {
			b.Fatal(err)
		}
		for _, via := range []struct {
			name string
			p    llm.Provider
		}{{"direct", p}, {"router", r}} {
			b.Run(fmt.Sprintf("events=%d/%s", n, via.name), func(b *testing.B) {
				b.ReportAllocs()
				ctx := context.Background()
				req := llm.Request{Model: "m"}
				for b.Loop() {
					for _, err := range via.p.Stream(ctx, req) {
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
