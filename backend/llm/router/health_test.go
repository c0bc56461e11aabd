package router

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// A dead primary costs the first call OpenAfter failures, then nothing until its circuit's
// time is up; then one probe per opening (twice as long each time it fails), and when it
// comes back the probe's call is answered by it and the calls after it go to it again.
func TestBreakerRemembersADeadPrimary(t *testing.T) {
	t.Parallel()
	clock := newClock()
	primary := &fake{name: "cloud", clock: clock, next: script(fail(llm.ErrServer, 500))}
	backup := &fake{name: "ollama", clock: clock, next: script(ok(answer))}
	r, reports := newTestRouter(t, clock, Target{Provider: primary, Model: "big"}, Target{Provider: backup, Model: "small"})

	var fallbacks []*llm.Fallback
	call := func() outcome {
		t.Helper()
		o := consume(func(yield func(llm.Event, error) bool) {
			for ev, err := range r.Stream(t.Context(), llm.Request{Model: "big"}) {
				if ev.Kind == llm.EventFallback {
					fallbacks = append(fallbacks, ev.Fallback)
				}
				if !yield(ev, err) {
					return
				}
			}
		})
		if o.err != nil || o.text != answer {
			t.Fatalf("call: %q, %v", o.text, o.err)
		}
		return o
	}
	call()
	if n := primary.numCalls(); n != DefaultPolicy.OpenAfter {
		t.Errorf("first call sent %d requests to the dead primary, want %d", n, DefaultPolicy.OpenAfter)
	}
	for range 5 {
		call()
	}
	if n := primary.numCalls(); n != DefaultPolicy.OpenAfter {
		t.Errorf("calls while the circuit is open sent %d requests in all to the primary, want %d", n, DefaultPolicy.OpenAfter)
	}
	if len(fallbacks) != 6 {
		t.Fatalf("%d fallback events for 6 calls", len(fallbacks))
	}
	if f := fallbacks[0]; f.From != "cloud/big" || f.To != "ollama/small" || f.Reason != "server" {
		t.Errorf("first fallback %+v: want big → small with the failure", f)
	}
	if f := fallbacks[1]; !strings.Contains(f.Reason, "cloud/big failed 3 time(s) in a row") || !strings.Contains(f.Reason, "tried again in 30s") {
		t.Errorf("fallback on an open circuit says %q", f.Reason)
	}
	rep := (*reports)[1]
	if !rep.Attempts[0].Skipped || rep.Attempts[0].Next != "fallback" || rep.Sent() != 1 {
		t.Errorf("report of a call on an open circuit: %+v", rep)
	}

	// Time is up: one call probes with one request, fails, and the circuit opens for twice as long.
	clock.Sleep(t.Context(), DefaultPolicy.OpenFor)
	call()
	if n := primary.numCalls(); n != DefaultPolicy.OpenAfter+1 {
		t.Errorf("the probe sent %d requests, want 1", n-DefaultPolicy.OpenAfter)
	}
	if a := (*reports)[6].Attempts[0]; !a.Probe || a.Next != "fallback" {
		t.Errorf("probe attempt %+v", a)
	}
	clock.Sleep(t.Context(), DefaultPolicy.OpenFor)
	call()
	if n := primary.numCalls(); n != DefaultPolicy.OpenAfter+1 {
		t.Errorf("probed again after %s, the opening after a failed probe is %s", DefaultPolicy.OpenFor, 2*DefaultPolicy.OpenFor)
	}

	// The primary comes back: the next probe's call is its, with a notice, and it stays first.
	primary.next = script(ok(answer))
	clock.Sleep(t.Context(), DefaultPolicy.OpenFor)
	var notices []string
	for ev := range r.Stream(t.Context(), llm.Request{Model: "big"}) {
		if ev.Kind == llm.EventNotice {
			notices = append(notices, ev.Text)
		}
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "cloud/big answers again") {
		t.Errorf("notices %q, want that cloud/big answers again", notices)
	}
	before := backup.numCalls()
	call()
	call()
	if backup.numCalls() != before {
		t.Errorf("the backup still got calls after the primary came back")
	}
}

// Routers given one Health share what they learn: a sub-agent's router skips a primary the
// main turn's router found dead.
func TestBreakerIsShared(t *testing.T) {
	t.Parallel()
	clock := newClock()
	h := NewHealth()
	primary := &fake{name: "cloud", clock: clock, next: script(fail(llm.ErrUnreachable, 0))}
	backup := &fake{name: "ollama", clock: clock, next: script(ok(answer))}
	targets := []Target{{Provider: primary, Model: "big"}, {Provider: backup, Model: "small"}}
	a, err := New(targets, WithClock(clock), WithRand(func() float64 { return 0 }), WithHealth(h))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(targets, WithClock(clock), WithRand(func() float64 { return 0 }), WithHealth(h))
	if err != nil {
		t.Fatal(err)
	}
	consume(a.Stream(t.Context(), llm.Request{Model: "big"}))
	if o := consume(b.Stream(t.Context(), llm.Request{Model: "big"})); o.err != nil || o.text != answer {
		t.Fatalf("second router: %q, %v", o.text, o.err)
	}
	if n := primary.numCalls(); n != DefaultPolicy.OpenAfter {
		t.Errorf("the primary got %d requests from two routers, want %d", n, DefaultPolicy.OpenAfter)
	}
	for _, st := range h.States() {
		if st.Open != (st.Target == "cloud/big") {
			t.Errorf("state %+v: only cloud/big is open", st)
		}
	}
}

// Without a later target the circuit is never a reason to skip: the only model is tried, with
// the whole retry policy.
func TestBreakerNeverSkipsTheLastTarget(t *testing.T) {
	t.Parallel()
	clock := newClock()
	p := &fake{name: "cloud", clock: clock, next: script(fail(llm.ErrServer, 500))}
	r, _ := newTestRouter(t, clock, Target{Provider: p, Model: "big"})
	for range 3 {
		consume(r.Stream(t.Context(), llm.Request{Model: "big"}))
	}
	if n := p.numCalls(); n != 3*DefaultPolicy.MaxAttempts {
		t.Errorf("%d requests, want %d", n, 3*DefaultPolicy.MaxAttempts)
	}
}

// Half-open: while one call probes, the others still skip the target.
func TestHalfOpenAdmitsOneProbe(t *testing.T) {
	t.Parallel()
	clock := newClock()
	h := NewHealth()
	err := &llm.Error{Kind: llm.ErrServer, Message: "boom"}
	for range DefaultPolicy.OpenAfter {
		h.failed("p/m", err, clock.Now(), DefaultPolicy)
	}
	if ok, _, _ := h.admit("p/m", clock.Now()); ok {
		t.Fatal("admitted while open")
	}
	clock.Sleep(t.Context(), DefaultPolicy.OpenFor)
	var mu sync.Mutex
	var probes, refused int
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ok, probe, why := h.admit("p/m", clock.Now())
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ok && probe:
				probes++
			case !ok && strings.Contains(why, "after the call probing it now"):
				refused++
			}
		})
	}
	wg.Wait()
	if probes != 1 || refused != 7 {
		t.Errorf("%d probes and %d refused, want 1 and 7", probes, refused)
	}
}

// Labels say what happened: an attempt followed by a wait on the same key is a retry, not a
// key rotation; the last attempt of a target that has no key left says nothing came next.
func TestAttemptLabels(t *testing.T) {
	t.Parallel()
	t.Run("two keys cooling down", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		tg, _ := keyed(clock, map[string][]step{
			"k0": {rateLimited(20e9), ok(answer)},
			"k1": {rateLimited(5e9), ok(answer)},
		})
		r, reports := newTestRouter(t, clock, tg)
		consume(r.Stream(t.Context(), llm.Request{}))
		if got := nexts((*reports)[0]); !slices.Equal(got, []string{"rotate_key", "retry", ""}) {
			t.Errorf("labels %q, want [rotate_key retry \"\"]", got)
		}
	})
	t.Run("one key cooling down too long", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		p := &fake{name: "fake", clock: clock, next: script(rateLimited(600e9))}
		r, reports := newTestRouter(t, clock, Target{Provider: p, Model: "m"})
		consume(r.Stream(t.Context(), llm.Request{Model: "m"}))
		if got := nexts((*reports)[0]); !slices.Equal(got, []string{""}) {
			t.Errorf("labels %q, want [\"\"]", got)
		}
	})
}

func nexts(rep CallReport) []string {
	var out []string
	for _, a := range rep.Attempts {
		out = append(out, a.Next)
	}
	return out
}
