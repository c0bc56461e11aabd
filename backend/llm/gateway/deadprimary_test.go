package gateway

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/testtools"
)

// virtualClock advances only when slept on, or by what a test says a reply took; the router's
// waits (backoffs, Retry-After) are counted without being waited for.
type virtualClock struct {
	mu    sync.Mutex
	now   time.Time
	slept time.Duration
}

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept += d
	return nil
}

func (c *virtualClock) pass(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// deadCost is what a dead primary cost a run of tasks.
type deadCost struct {
	tasks, calls     int
	sent, primary    int           // requests sent in all, and to the primary
	waited, wall     time.Duration // the router's waits (virtual), and real time
	fallbackEvents   int
	reasonsWithModel int // fallback events naming both models
}

const (
	deadTasks        = 10
	deadCallsPerTask = 5
	// replyTime is what each answered call is taken to last (the backup generating its
	// reply), so the breaker's openings run out as they would between real calls.
	replyTime = 10 * time.Second
)

// runDeadPrimary runs deadTasks tasks of deadCallsPerTask calls each through a gateway whose
// primary (format, over the scripted server) meets fault on every request, with an Ollama
// backup; breaker false turns the circuit breaker off (the router as it was before it).
func runDeadPrimary(t *testing.T, format string, fault scripted.Reply, unreachable, breaker bool) deadCost {
	t.Helper()
	primary := scripted.New(t, scripted.DemoModel())
	primary.Default(fault)
	backup := scripted.New(t, scripted.DemoModel())
	backup.Default(scripted.Reply{Text: "the backup answers"})
	base := primary.URL
	switch {
	case unreachable:
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base = "http://" + l.Addr().String()
		l.Close()
	case format == config.TypeOpenAI:
		base += "/v1"
	}
	cfg := config.Config{
		Providers: []config.Provider{{Name: "main", Type: format, BaseURL: base}, {Name: "backup", Type: config.TypeOllama, BaseURL: backup.URL}},
		Fallback:  []string{"backup/" + scripted.DemoModelName},
	}
	clock := &virtualClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	pol := router.Policy{Jitter: -1}
	if !breaker {
		pol.OpenAfter = -1
	}
	var cost deadCost
	var mu sync.Mutex
	g, err := New(cfg, func(string) []string { return []string{"sk-test"} }, router.WithClock(clock), router.WithPolicy(pol),
		router.WithReport(func(r router.CallReport) {
			mu.Lock()
			defer mu.Unlock()
			cost.sent += r.Sent()
			for _, a := range r.Attempts {
				if !a.Skipped && strings.HasPrefix(a.Target, "main/") {
					cost.primary++
				}
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for task := range deadTasks {
		for call := range deadCallsPerTask {
			var text strings.Builder
			for ev, err := range g.Stream(t.Context(), llm.Request{Model: scripted.DemoModelName,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("task %d call %d", task, call)}}}) {
				if err != nil {
					t.Fatalf("%s task %d call %d: %v", format, task, call, err)
				}
				switch ev.Kind {
				case llm.EventText:
					text.WriteString(ev.Text)
				case llm.EventRetry:
					text.Reset()
				case llm.EventFallback:
					cost.fallbackEvents++
					if f := ev.Fallback; f != nil && f.From == "main/"+scripted.DemoModelName && f.To == "backup/"+scripted.DemoModelName && ev.Text == f.To && f.Reason != "" {
						cost.reasonsWithModel++
					}
				}
			}
			if text.String() != "the backup answers" {
				t.Fatalf("%s task %d call %d: %q", format, task, call, text.String())
			}
			cost.calls++
			clock.pass(replyTime)
		}
		cost.tasks++
	}
	cost.wall = time.Since(start)
	cost.waited = clock.slept
	return cost
}

// TestDeadPrimaryCost measures what a primary that fails every request costs per task, with
// the circuit breaker off (every call tries the primary afresh, as before it) and on, for each
// wire format and the fault kinds of the scripted server that make a target dead. Waits are
// the router's (backoffs, Retry-After) on a virtual clock; every answered call is taken to
// last 10 s. Run with -v for the table (docs/ROUTER.md has the figures).
func TestDeadPrimaryCost(t *testing.T) {
	testtools.CPUBound(t)
	t.Parallel()
	long := strings.Repeat("word ", 40)
	faults := []struct {
		name        string
		reply       scripted.Reply
		unreachable bool
	}{
		{"500", scripted.Reply{Fault: scripted.FaultServerError}, false},
		{"529 Retry-After 1s", scripted.Reply{Fault: scripted.FaultOverloaded, RetryAfter: time.Second}, false},
		{"429 Retry-After 1s", scripted.Reply{Fault: scripted.FaultRateLimit, RetryAfter: time.Second}, false},
		{"reset mid-reply", scripted.Reply{Fault: scripted.FaultReset, Text: long, After: 3}, false},
		{"unreachable", scripted.Reply{}, true},
	}
	for _, format := range []string{config.TypeOllama, config.TypeOpenAI, config.TypeAnthropic} {
		for _, f := range faults {
			if f.unreachable && format != config.TypeOllama {
				continue // a closed port is the same for every format
			}
			before := runDeadPrimary(t, format, f.reply, f.unreachable, false)
			after := runDeadPrimary(t, format, f.reply, f.unreachable, true)
			per := func(c deadCost) string {
				return fmt.Sprintf("%5.1f requests (%4.1f to the primary), %6.1f s waited per task",
					float64(c.sent)/float64(c.tasks), float64(c.primary)/float64(c.tasks), c.waited.Seconds()/float64(c.tasks))
			}
			t.Logf("%-9s %-19s before: %s | after: %s", format, f.name, per(before), per(after))
			if after.primary >= before.primary || after.waited > before.waited {
				t.Errorf("%s %s: the breaker did not cut the cost: before %+v, after %+v", format, f.name, before, after)
			}
			if after.fallbackEvents != after.calls || after.reasonsWithModel != after.calls {
				t.Errorf("%s %s: %d fallback events (%d naming both models and why) for %d calls",
					format, f.name, after.fallbackEvents, after.reasonsWithModel, after.calls)
			}
		}
	}
}
