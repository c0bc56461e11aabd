package router

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

const answer = "The quick brown fox jumps over the lazy dog."

func TestRetryPolicy(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		steps    []step
		wantErr  llm.ErrorKind
		wantSent int             // calls the provider received
		retries  int             // EventRetry events
		sleeps   []time.Duration // with jitter drawn as 0: the full backoff
	}{
		"clean": {steps: []step{ok(answer)}, wantSent: 1},
		"500 then ok": {
			steps:    []step{fail(llm.ErrServer, 500), fail(llm.ErrServer, 500), fail(llm.ErrServer, 500), ok(answer)},
			wantSent: 4, sleeps: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
		},
		"500 four times": {
			steps:   []step{fail(llm.ErrServer, 500)},
			wantErr: llm.ErrServer, wantSent: 4,
			sleeps: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
		},
		"unreachable then ok": {
			steps:    []step{fail(llm.ErrUnreachable, 0), ok(answer)},
			wantSent: 2, sleeps: []time.Duration{500 * time.Millisecond},
		},
		"429 honours Retry-After": {
			steps:    []step{rateLimited(7 * time.Second), ok(answer)},
			wantSent: 2, sleeps: []time.Duration{7 * time.Second},
		},
		"429 Retry-After shorter than backoff": {
			steps:    []step{rateLimited(100 * time.Millisecond), ok(answer)},
			wantSent: 2, sleeps: []time.Duration{500 * time.Millisecond},
		},
		"429 Retry-After beyond MaxWait": {
			steps:   []step{rateLimited(10 * time.Minute)},
			wantErr: llm.ErrRateLimited, wantSent: 1,
		},
		"reset mid-stream": {
			steps:    []step{brokenAfter(answer, 3), ok(answer)},
			wantSent: 2, retries: 1, sleeps: []time.Duration{500 * time.Millisecond},
		},
		"cut without done": {
			steps:    []step{{events: reply(answer, 4), noDone: true}, ok(answer)},
			wantSent: 2, retries: 1, sleeps: []time.Duration{500 * time.Millisecond},
		},
		"empty stream": {
			steps:    []step{{}, ok(answer)},
			wantSent: 2, sleeps: []time.Duration{500 * time.Millisecond},
		},
		"slow first event": {
			steps:    []step{{delay: 90 * time.Second, events: reply(answer, 4)}},
			wantSent: 1, sleeps: []time.Duration{90 * time.Second},
		},
		"context overflow is not retried": {
			steps:   []step{fail(llm.ErrContextOverflow, 400)},
			wantErr: llm.ErrContextOverflow, wantSent: 1,
		},
		"bad request is not retried": {
			steps:   []step{fail(llm.ErrBadRequest, 400)},
			wantErr: llm.ErrBadRequest, wantSent: 1,
		},
		"model not found is not retried": {
			steps:   []step{fail(llm.ErrModelNotFound, 404)},
			wantErr: llm.ErrModelNotFound, wantSent: 1,
		},
		"auth without other keys": {
			steps:   []step{fail(llm.ErrAuth, 401)},
			wantErr: llm.ErrAuth, wantSent: 1,
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := newClock()
			p := &fake{name: "fake", clock: clock, next: script(tc.steps...)}
			r, reports := newTestRouter(t, clock, Target{Provider: p, Model: "m"})
			o := consume(r.Stream(t.Context(), llm.Request{Model: "m"}))
			if got := llm.KindOf(o.err); got != tc.wantErr {
				t.Fatalf("error = %v (%q), want kind %q", o.err, got, tc.wantErr)
			}
			if tc.wantErr == "" && (o.text != answer || o.done != 1) {
				t.Errorf("text %q with %d done events, want %q and 1", o.text, o.done, answer)
			}
			if n := p.numCalls(); n != tc.wantSent {
				t.Errorf("provider got %d calls, want %d", n, tc.wantSent)
			}
			if len(o.retries) != tc.retries {
				t.Errorf("EventRetry %d times (%q), want %d", len(o.retries), o.retries, tc.retries)
			}
			if got := clock.slept(); !slices.Equal(got, tc.sleeps) {
				t.Errorf("slept %v, want %v", got, tc.sleeps)
			}
			rep := (*reports)[0]
			if len(rep.Attempts) != tc.wantSent || rep.Restarts != tc.retries {
				t.Errorf("report: %d attempts, %d restarts; want %d, %d", len(rep.Attempts), rep.Restarts, tc.wantSent, tc.retries)
			}
			if want := cmpOr(string(tc.wantErr), "ok"); rep.Outcome != want {
				t.Errorf("report outcome %q, want %q", rep.Outcome, want)
			}
		})
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestRestartsAreBounded(t *testing.T) {
	t.Parallel()
	clock := newClock()
	p := &fake{name: "fake", clock: clock, next: script(brokenAfter(answer, 2))}
	r, reports := newTestRouter(t, clock, Target{Provider: p})
	o := consume(r.Stream(t.Context(), llm.Request{Model: "m"}))
	if llm.KindOf(o.err) != llm.ErrServer {
		t.Fatalf("error = %v, want a server error", o.err)
	}
	// The first run and 16 re-runs; the last partial reply is left for the caller to show.
	if n := p.numCalls(); n != 17 {
		t.Errorf("provider got %d calls, want 17", n)
	}
	if len(o.retries) != 16 || o.text != answer[:8] {
		t.Errorf("%d retries, text %q; want 16 and %q", len(o.retries), o.text, answer[:8])
	}
	if max := slices.Max(clock.slept()); max != DefaultPolicy.MaxBackoff {
		t.Errorf("longest backoff %v, want the cap %v", max, DefaultPolicy.MaxBackoff)
	}
	if rep := (*reports)[0]; rep.Attempts[0].Next != "restart" || rep.Attempts[16].Next != "" {
		t.Errorf("report attempts %+v", rep.Attempts)
	}
}

func TestJitter(t *testing.T) {
	t.Parallel()
	clock := newClock()
	p := &fake{name: "fake", clock: clock, next: script(fail(llm.ErrServer, 500), ok(answer))}
	r, err := New([]Target{{Provider: p}}, WithClock(clock), WithRand(func() float64 { return 0.5 }),
		WithPolicy(Policy{BaseBackoff: time.Second, Jitter: 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	consume(r.Stream(t.Context(), llm.Request{}))
	if got := clock.slept(); !slices.Equal(got, []time.Duration{750 * time.Millisecond}) {
		t.Errorf("slept %v, want [750ms] (1s less half of the 50%% jitter)", got)
	}

	clock = newClock()
	p.clock, p.next, p.calls = clock, script(fail(llm.ErrServer, 500), ok(answer)), nil
	r, err = New([]Target{{Provider: p}}, WithClock(clock), WithRand(func() float64 { return 0.5 }),
		WithPolicy(Policy{BaseBackoff: time.Second, Jitter: -1}))
	if err != nil {
		t.Fatal(err)
	}
	consume(r.Stream(t.Context(), llm.Request{}))
	if got := clock.slept(); !slices.Equal(got, []time.Duration{time.Second}) {
		t.Errorf("without jitter slept %v, want [1s]", got)
	}
}

func keyed(clock *fakeClock, steps map[string][]step) (Target, map[string]*fake) {
	fakes := map[string]*fake{}
	var keys []string
	for _, k := range []string{"k0", "k1", "k2"} {
		if s, ok := steps[k]; ok {
			fakes[k] = &fake{name: "cloud", clock: clock, next: script(s...)}
			keys = append(keys, k)
		}
	}
	return Target{Model: "big", Keys: keys, NewProvider: func(key string) llm.Provider { return fakes[key] }}, fakes
}

func TestKeyRotation(t *testing.T) {
	t.Parallel()
	t.Run("429 moves to the next key at once", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		tg, fakes := keyed(clock, map[string][]step{
			"k0": {rateLimited(30 * time.Second), ok(answer)},
			"k1": {ok(answer)},
		})
		r, reports := newTestRouter(t, clock, tg)
		if o := consume(r.Stream(t.Context(), llm.Request{})); o.err != nil || o.text != answer {
			t.Fatalf("got %q, %v", o.text, o.err)
		}
		if len(clock.slept()) != 0 {
			t.Errorf("slept %v before using a fresh key", clock.slept())
		}
		if keys := usedKeys((*reports)[0]); !slices.Equal(keys, []int{0, 1}) {
			t.Errorf("keys used %v, want [0 1]", keys)
		}
		// The next call starts on the key that worked.
		consume(r.Stream(t.Context(), llm.Request{}))
		if fakes["k0"].numCalls() != 1 || fakes["k1"].numCalls() != 2 {
			t.Errorf("calls per key: %d, %d; want 1, 2", fakes["k0"].numCalls(), fakes["k1"].numCalls())
		}
	})
	t.Run("every key cooling down waits for the soonest", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		tg, _ := keyed(clock, map[string][]step{
			"k0": {rateLimited(20 * time.Second), ok(answer)},
			"k1": {rateLimited(5 * time.Second), ok(answer)},
		})
		r, reports := newTestRouter(t, clock, tg)
		if o := consume(r.Stream(t.Context(), llm.Request{})); o.err != nil || o.text != answer {
			t.Fatalf("got %q, %v", o.text, o.err)
		}
		if got := clock.slept(); !slices.Equal(got, []time.Duration{5 * time.Second}) {
			t.Errorf("slept %v, want [5s]", got)
		}
		if keys := usedKeys((*reports)[0]); !slices.Equal(keys, []int{0, 1, 1}) {
			t.Errorf("keys used %v, want [0 1 1]", keys)
		}
	})
	t.Run("a refused key is benched", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		tg, fakes := keyed(clock, map[string][]step{
			"k0": {fail(llm.ErrAuth, 401)},
			"k1": {ok(answer)},
		})
		r, _ := newTestRouter(t, clock, tg)
		for range 3 {
			if o := consume(r.Stream(t.Context(), llm.Request{})); o.err != nil || o.text != answer {
				t.Fatalf("got %q, %v", o.text, o.err)
			}
		}
		if fakes["k0"].numCalls() != 1 || fakes["k1"].numCalls() != 3 {
			t.Errorf("calls per key: %d, %d; want 1, 3", fakes["k0"].numCalls(), fakes["k1"].numCalls())
		}
		// Once the bench is over, the key is tried again.
		clock.Sleep(t.Context(), DefaultPolicy.AuthBenchFor)
		r.targets[0].cur = 0
		consume(r.Stream(t.Context(), llm.Request{}))
		if fakes["k0"].numCalls() != 2 {
			t.Errorf("k0 got %d calls after its bench, want 2", fakes["k0"].numCalls())
		}
	})
	t.Run("a failing key is benched", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		// k0 always fails with 500 and stays the first choice until benched.
		tg, fakes := keyed(clock, map[string][]step{
			"k0": {fail(llm.ErrServer, 500), fail(llm.ErrServer, 500), fail(llm.ErrServer, 500), ok(answer)},
			"k1": {ok(answer)},
		})
		r, reports := newTestRouter(t, clock, tg)
		if o := consume(r.Stream(t.Context(), llm.Request{})); o.err != nil {
			t.Fatal(o.err)
		}
		if keys := usedKeys((*reports)[0]); !slices.Equal(keys, []int{0, 0, 0, 1}) {
			t.Errorf("keys used %v, want [0 0 0 1] (benched after 3 failures)", keys)
		}
		consume(r.Stream(t.Context(), llm.Request{}))
		if fakes["k0"].numCalls() != 3 {
			t.Errorf("benched k0 got %d calls, want 3", fakes["k0"].numCalls())
		}
	})
	t.Run("all keys refused falls back", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		tg, _ := keyed(clock, map[string][]step{
			"k0": {fail(llm.ErrAuth, 401)},
			"k1": {fail(llm.ErrAuth, 403)},
		})
		local := &fake{name: "ollama", clock: clock, next: script(ok(answer))}
		r, reports := newTestRouter(t, clock, tg, Target{Provider: local, Model: "small"})
		o := consume(r.Stream(t.Context(), llm.Request{}))
		if o.err != nil || o.text != answer || !slices.Equal(o.fallbacks, []string{"small"}) {
			t.Fatalf("got %q, %v, fallbacks %q", o.text, o.err, o.fallbacks)
		}
		rep := (*reports)[0]
		if rep.Target != "ollama/small" || rep.Fallback != 1 || rep.Attempts[1].Next != "fallback" {
			t.Errorf("report %+v", rep)
		}
		// The next call does not try the refused keys again.
		o = consume(r.Stream(t.Context(), llm.Request{}))
		if o.err != nil || local.numCalls() != 2 || (*reports)[1].Sent() != 1 {
			t.Errorf("second call: %v, %d local calls, report %+v", o.err, local.numCalls(), (*reports)[1])
		}
	})
}

func usedKeys(rep CallReport) []int {
	var keys []int
	for _, a := range rep.Attempts {
		keys = append(keys, a.Key)
	}
	return keys
}

func TestFallback(t *testing.T) {
	t.Parallel()
	clock := newClock()
	primary := &fake{name: "cloud", clock: clock, next: script(brokenAfter(answer, 2), fail(llm.ErrServer, 529))}
	second := &fake{name: "ollama", clock: clock, next: script(ok("Local answer."))}
	r, reports := newTestRouter(t, clock, Target{Provider: primary, Model: "big"}, Target{Provider: second, Model: "small"})

	var kinds []llm.EventKind
	var o outcome
	stream := r.Stream(t.Context(), llm.Request{Model: "big"})
	o = consume(func(yield func(llm.Event, error) bool) {
		for ev, err := range stream {
			kinds = append(kinds, ev.Kind)
			if !yield(ev, err) {
				return
			}
		}
	})
	if o.err != nil || o.text != "Local answer." {
		t.Fatalf("got %q, %v", o.text, o.err)
	}
	// The partial reply is voided once, before the fallback is announced.
	want := []llm.EventKind{llm.EventText, llm.EventText, llm.EventRetry, llm.EventFallback}
	if !slices.Equal(kinds[:4], want) || len(o.retries) != 1 {
		t.Errorf("events %v, want %v first and one retry", kinds, want)
	}
	// The third failure in a row opens the primary's circuit: the call falls back there
	// rather than spending the rest of its attempts.
	if primary.numCalls() != 3 || second.numCalls() != 1 {
		t.Errorf("calls %d, %d; want 3 (1 broken + 2 failed), 1", primary.numCalls(), second.numCalls())
	}
	if rep := (*reports)[0]; rep.Target != "ollama/small" || rep.Fallback != 1 || rep.Outcome != "ok" {
		t.Errorf("report %+v", rep)
	}

	// A request for the second model starts there.
	consume(r.Stream(t.Context(), llm.Request{Model: "small"}))
	if primary.numCalls() != 3 || second.numCalls() != 2 {
		t.Errorf("request for small: calls %d, %d; want 3, 2", primary.numCalls(), second.numCalls())
	}
	// An overflow does not fall back: the context layer must compact. (Once the circuit's
	// time is up, the call probes the primary.)
	clock.Sleep(t.Context(), DefaultPolicy.OpenFor)
	primary.next = script(fail(llm.ErrContextOverflow, 400))
	if o := consume(r.Stream(t.Context(), llm.Request{Model: "big"})); llm.KindOf(o.err) != llm.ErrContextOverflow || len(o.fallbacks) != 0 {
		t.Errorf("overflow: %v, fallbacks %q", o.err, o.fallbacks)
	}
}

func TestCancellation(t *testing.T) {
	t.Parallel()
	t.Run("during backoff", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		clock.onSleep = func() { cancel(errors.New("user")) }
		p := &fake{name: "fake", clock: clock, next: script(fail(llm.ErrServer, 500), ok(answer))}
		r, reports := newTestRouter(t, clock, Target{Provider: p}, Target{Provider: p})
		o := consume(r.Stream(ctx, llm.Request{}))
		if llm.KindOf(o.err) != llm.ErrInterrupted || p.numCalls() != 1 || len(o.fallbacks) != 0 {
			t.Errorf("got %v after %d calls, fallbacks %q; want interrupted after 1", o.err, p.numCalls(), o.fallbacks)
		}
		if (*reports)[0].Outcome != string(llm.ErrInterrupted) {
			t.Errorf("outcome %q", (*reports)[0].Outcome)
		}
	})
	t.Run("mid-stream", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		p := &fake{name: "fake", clock: clock, next: script(ok(answer))}
		r, _ := newTestRouter(t, clock, Target{Provider: p})
		var err error
		for ev, e := range r.Stream(ctx, llm.Request{}) {
			if ev.Kind == llm.EventText {
				cancel()
			}
			err = e
		}
		if llm.KindOf(err) != llm.ErrInterrupted || p.numCalls() != 1 {
			t.Errorf("got %v after %d calls, want interrupted after 1", err, p.numCalls())
		}
	})
	t.Run("consumer stops", func(t *testing.T) {
		t.Parallel()
		clock := newClock()
		p := &fake{name: "fake", clock: clock, next: script(ok(answer))}
		r, reports := newTestRouter(t, clock, Target{Provider: p})
		for range r.Stream(t.Context(), llm.Request{}) {
			break
		}
		if rep := (*reports)[0]; rep.Outcome != "stopped" || len(rep.Attempts) != 1 {
			t.Errorf("report %+v", rep)
		}
	})
}

func TestReportTo(t *testing.T) {
	t.Parallel()
	clock := newClock()
	p := &fake{name: "fake", clock: clock, next: script(rateLimited(time.Second), ok(answer))}
	r, _ := newTestRouter(t, clock, Target{Provider: p, Model: "m"})
	var got []CallReport
	ctx := ReportTo(t.Context(), func(rep CallReport) { got = append(got, rep) })
	consume(r.Stream(ctx, llm.Request{}))
	if len(got) != 1 {
		t.Fatalf("%d reports, want 1", len(got))
	}
	a := got[0].Attempts[0]
	if a.Fault != llm.ErrRateLimited || a.Status != 429 || a.Next != "retry" || a.Key != -1 || a.Target != "fake/m" {
		t.Errorf("first attempt %+v", a)
	}
	if got[0].Duration != time.Second {
		t.Errorf("duration %v, want 1s on the test clock", got[0].Duration)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	local := &fake{name: "ollama", models: []llm.ModelInfo{{Name: "qwen3", Provider: "ollama"}, {Name: "llama3.2", Provider: "ollama"}}}
	cloud := &fake{name: "openai", models: []llm.ModelInfo{{Name: "gpt-x", Provider: "openai", ContextLength: 400000}, {Name: "gpt-y", Provider: "openai"}}}
	r, err := New([]Target{{Provider: local}, {Provider: cloud, Model: "gpt-x"}, {Provider: cloud, Model: "gpt-z"}, {Provider: local, Model: "qwen3"}})
	if err != nil {
		t.Fatal(err)
	}
	models, err := r.Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range models {
		names = append(names, m.Provider+"/"+m.Name)
	}
	if want := []string{"ollama/qwen3", "ollama/llama3.2", "openai/gpt-x", "openai/gpt-z"}; !slices.Equal(names, want) {
		t.Errorf("models %v, want %v", names, want)
	}
	if models[2].ContextLength != 400000 {
		t.Errorf("gpt-x lost its metadata: %+v", models[2])
	}
}

func TestNewRejectsBadTargets(t *testing.T) {
	t.Parallel()
	for name, targets := range map[string][]Target{
		"none":                  nil,
		"no provider":           {{Model: "m"}},
		"keys without provider": {{Keys: []string{"k"}}},
	} {
		if _, err := New(targets); err == nil {
			t.Errorf("%s: New accepted %+v", name, targets)
		}
	}
}
