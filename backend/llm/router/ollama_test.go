package router_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// instant is a clock whose sleeps return at once, so backoffs cost nothing.
type instant struct{ slept []time.Duration }

func (c *instant) Now() time.Time { return time.Unix(0, 0).Add(sum(c.slept)) }

func (c *instant) Sleep(ctx context.Context, d time.Duration) error {
	c.slept = append(c.slept, d)
	return ctx.Err()
}

func sum(ds []time.Duration) (s time.Duration) {
	for _, d := range ds {
		s += d
	}
	return s
}

// The real Ollama provider behind the router, against the scripted server: a connection reset
// after two pieces, then a 500, then the answer.
func TestOllamaThroughRouter(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Model{Name: "plain:latest", ContextLength: 8192})
	const text = "one two three four five six"
	srv.OnUser("hello").Reply(scripted.Reply{Text: text, DieAfter: 2}).Times(1)
	srv.OnUser("hello").Reply(scripted.Reply{Status: 500, Error: "boom"}).Times(1)
	srv.OnUser("hello").Reply(scripted.Reply{Text: text})

	var rep router.CallReport
	clock := &instant{}
	r, err := router.New([]router.Target{{Provider: ollama.New(srv.URL), Model: "plain"}},
		router.WithClock(clock), router.WithRand(func() float64 { return 0 }),
		router.WithReport(func(cr router.CallReport) { rep = cr }))
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	var retries int
	for ev, err := range r.Stream(t.Context(), llm.Request{Model: "plain", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case llm.EventText:
			got.WriteString(ev.Text)
		case llm.EventRetry:
			got.Reset()
			retries++
		}
	}
	if got.String() != text || retries != 1 {
		t.Errorf("got %q after %d retries, want %q after 1", got.String(), retries, text)
	}
	var faults []string
	for _, a := range rep.Attempts {
		faults = append(faults, string(a.Fault)+":"+a.Next)
	}
	if want := "server:restart server:retry :"; strings.Join(faults, " ") != want {
		t.Errorf("attempts %q, want %q", faults, want)
	}
	if len(srv.Chats()) != 3 {
		t.Errorf("server saw %d chats, want 3", len(srv.Chats()))
	}
}
