package router

import (
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
)

// A server that asks for 120 s before the next request is tried again in 120 s, and the
// notice says so (it said "tried again in 29s" while the key stayed cooling down).
func TestOpenCircuitHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	clock := newClock()
	primary := &fake{name: "cloud", clock: clock, next: script(rateLimited(120 * time.Second))}
	backup := &fake{name: "ollama", clock: clock, next: script(ok(answer))}
	r, _ := newTestRouter(t, clock, Target{Provider: primary, Model: "big"}, Target{Provider: backup, Model: "small"})
	var reasons []string
	call := func() {
		t.Helper()
		o := consume(func(yield func(llm.Event, error) bool) {
			for ev, err := range r.Stream(t.Context(), llm.Request{Model: "big"}) {
				if ev.Kind == llm.EventFallback {
					reasons = append(reasons, ev.Fallback.Reason)
				}
				if !yield(ev, err) {
					return
				}
			}
		})
		if o.err != nil || o.text != answer {
			t.Fatalf("call: %q, %v", o.text, o.err)
		}
	}
	call()
	clock.Sleep(t.Context(), time.Second)
	call()
	if len(reasons) != 2 || !strings.Contains(reasons[1], "tried again in 1m59s") {
		t.Fatalf("fallback reasons %q", reasons)
	}
}
