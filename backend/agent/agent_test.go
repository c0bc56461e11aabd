package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/openai"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// fakeTools is an in-memory runtime: "read" is read-only, "write" is not, "slow" blocks until
// its context ends; every run is counted.
type fakeTools struct {
	mu       sync.Mutex
	runs     []string
	inFlight atomic.Int32
	maxPar   atomic.Int32
	started  chan string
	// meet, when set, holds each "read" until that many reads run at once: it proves they
	// overlap without betting on how long a sleep lets the scheduler start the others.
	meet     int
	arrived  int
	together chan struct{}
}

// waitTogether blocks a read until meet reads have arrived. Reads run one at a time never get
// there: after a minute (a hang, not a timing) they go on, and maxPar fails the test.
func (f *fakeTools) waitTogether(ctx context.Context) {
	f.mu.Lock()
	if f.together == nil {
		f.together = make(chan struct{})
	}
	f.arrived++
	if f.arrived == f.meet {
		close(f.together)
	}
	ch := f.together
	f.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	case <-time.After(time.Minute):
	}
}

func (f *fakeTools) Specs() []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, n := range []string{"read", "write", "slow"} {
		out = append(out, llm.ToolSpec{Name: n, Description: n, Parameters: json.RawMessage(`{"type":"object"}`)})
	}
	return out
}

func (f *fakeTools) ReadOnly(name string) bool { return name == "read" || name == "slow" }

func (f *fakeTools) Access(c tools.Call) ([]tools.Access, *tools.ArgError) {
	if !json.Valid(c.Arguments) {
		return nil, &tools.ArgError{Tool: c.Name, Problems: []tools.Problem{{Message: "the arguments are not valid JSON"}}}
	}
	var a struct{ Path string }
	json.Unmarshal(c.Arguments, &a)
	kind := tools.AccessRead
	if c.Name == "write" {
		kind = tools.AccessWrite
	}
	return []tools.Access{{Kind: kind, Path: a.Path}}, nil
}

func (f *fakeTools) Run(ctx context.Context, c tools.Call) (tools.Result, error) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxPar.Load()
		if n <= m || f.maxPar.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	f.runs = append(f.runs, c.Name+" "+string(c.Arguments))
	f.mu.Unlock()
	if f.started != nil {
		f.started <- c.Name
	}
	switch c.Name {
	case "slow":
		<-ctx.Done()
		return tools.Result{Text: "partial output"}, nil
	case "read":
		if f.meet > 0 {
			f.waitTogether(ctx)
		}
		return tools.Result{Text: "contents of " + string(c.Arguments)}, nil
	}
	if strings.Contains(string(c.Arguments), `"cmd-`) {
		return tools.Result{Text: "ran"}, nil // a command: it names no files
	}
	return tools.Result{Text: "wrote", Files: []string{"/ws/a.go"}}, nil
}

func (f *fakeTools) ran() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.runs...)
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// toolResults counts the tool messages in a request: the step the scripted model is at.
func toolResults(r llm.Request) int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool {
			n++
		}
	}
	return n
}

type env struct {
	st    *store.Store
	model *scripted.Server
	agent *Agent
	sess  string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := scripted.New(t, scripted.DemoModel())
	info, _ := st.CreateSession("")
	return &env{st: st, model: srv, agent: &Agent{Log: st, Provider: ollama.New(srv.URL)}, sess: info.ID}
}

func (e *env) say(t *testing.T, text string) {
	t.Helper()
	if _, err := e.st.Append(e.sess, store.EventUser, store.UserMessage{Text: text}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) types() string {
	evs, _ := e.st.Events(e.sess)
	var s []string
	for _, ev := range evs {
		s = append(s, string(ev.Type))
	}
	return strings.Join(s, ",")
}

func (e *env) results(t *testing.T) []store.ToolResult {
	evs, _ := e.st.Events(e.sess)
	var out []store.ToolResult
	for _, ev := range evs {
		if ev.Type == store.EventToolResult {
			var r store.ToolResult
			ev.Decode(&r)
			out = append(out, r)
		}
	}
	return out
}

func TestLoopRunsToolsUntilTheModelEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
		Text: "Let me look.", ToolCalls: []llm.ToolCall{call("c1", "read", `{"path":"a.go"}`), call("c2", "read", `{"path":"b.go"}`)},
	})
	e.model.On(func(r llm.Request) bool { return toolResults(r) == 2 }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{call("c3", "write", `{"path":"a.go"}`)},
	})
	e.model.Default(scripted.Reply{Text: "Fixed."})
	ft := &fakeTools{meet: 2}
	e.say(t, "fix the bug")
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Workspace: "/ws", Tools: ft})
	if end.Reason != "done" || end.Steps != 3 {
		t.Fatalf("end = %+v", end)
	}
	want := "user,assistant,usage,tool_result,tool_result,assistant,usage,tool_start,tool_result,assistant,usage,turn_end"
	if got := e.types(); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	if ft.maxPar.Load() != 2 {
		t.Errorf("the two reads ran with parallelism %d, want 2", ft.maxPar.Load())
	}
	res := e.results(t)
	if res[0].CallID != "c1" || res[1].CallID != "c2" || !strings.Contains(res[0].Text, "a.go") {
		t.Fatalf("results out of call order: %+v", res)
	}
	if res[2].Text != "wrote" {
		t.Fatalf("the write's result repeats what it said (one modifying call, no footer): %q", res[2].Text)
	}
	// The last request carried the whole exchange, tool results matched to their calls.
	chats := e.model.Chats()
	msgs := chats[len(chats)-1].Request.Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,tool,assistant,tool" {
		t.Fatalf("last request roles: %s", got)
	}
	if len(chats[0].Request.Tools) != 3 {
		t.Fatalf("tools offered: %d", len(chats[0].Request.Tools))
	}
}

func TestMalformedArgumentsAreAnsweredNotRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{call("c1", "write", `{"path": "a.go"`)},
	})
	e.model.Default(scripted.Reply{Text: "ok"})
	ft := &fakeTools{}
	e.say(t, "go")
	// Ollama parses tool arguments itself; OpenAI-compatible servers pass them through as text.
	e.agent.Provider = openai.New(e.model.URL+"/v1", "")
	e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: ft})
	res := e.results(t)
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "not valid JSON") || len(ft.ran()) != 0 {
		t.Fatalf("results %+v, runs %v", res, ft.ran())
	}
	// The next request replays the call as the model wrote it, not as an escaped string.
	chats := e.model.Chats()
	if len(chats) != 2 || len(chats[1].Request.Messages) < 2 || len(chats[1].Request.Messages[1].ToolCalls) != 1 {
		t.Fatalf("%d requests", len(chats))
	}
	if got := string(chats[1].Request.Messages[1].ToolCalls[0].Arguments); got != `{"path": "a.go"` {
		t.Fatalf("replayed arguments %s", got)
	}
}

type policyFunc func(tools.Call, []tools.Access) Verdict

func (f policyFunc) Check(c tools.Call, a []tools.Access) Verdict { return f(c, a) }

type approverFunc func(store.Approval) (string, error)

func (f approverFunc) Approve(_ context.Context, _ string, _ Verdict, a store.Approval, announce func() error) (string, error) {
	if err := announce(); err != nil {
		return "", err
	}
	return f(a)
}

func TestApprovals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer, wantEvents string
		action                   Action
		ran                      bool
	}{
		{"allowed by policy", "", "tool_start,tool_result", Allow, true},
		{"denied by policy", "", "approval,tool_result", Deny, false},
		{"user allows", "allow", "approval,approval,tool_start,tool_result", Ask, true},
		{"user denies", "deny", "approval,approval,tool_result", Ask, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
				ToolCalls: []llm.ToolCall{call("c1", "write", `{"path":"/etc/passwd"}`)},
			})
			e.model.Default(scripted.Reply{Text: "ok"})
			ft := &fakeTools{}
			var asked []store.Approval
			e.say(t, "go")
			e.agent.Run(context.Background(), Turn{
				Session: e.sess, Model: scripted.DemoModelName, Tools: ft,
				Policy: policyFunc(func(c tools.Call, a []tools.Access) Verdict {
					return Verdict{Action: tc.action, Subject: a[0].Path, Reason: "outside the workspace", Once: true}
				}),
				Approver: approverFunc(func(a store.Approval) (string, error) { asked = append(asked, a); return tc.answer, nil }),
			})
			got := strings.TrimSuffix(strings.TrimPrefix(e.types(), "user,assistant,usage,"), ",assistant,usage,turn_end")
			if got != tc.wantEvents {
				t.Fatalf("events %s, want %s", got, tc.wantEvents)
			}
			if ran := len(ft.ran()) == 1; ran != tc.ran {
				t.Fatalf("ran = %v", ran)
			}
			if tc.action == Ask && (len(asked) != 1 || asked[0].Subject != "/etc/passwd" || !asked[0].Once) {
				t.Fatalf("asked %+v", asked)
			}
			if res := e.results(t); res[0].IsError == tc.ran {
				t.Fatalf("result %+v", res[0])
			}
		})
	}
}

func TestInterruptDuringToolThenContinue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{call("c1", "write", `{"path":"a"}`), call("c2", "slow", `{}`), call("c3", "write", `{"path":"b"}`)},
	})
	e.model.Default(scripted.Reply{Text: "all done"})
	ft := &fakeTools{started: make(chan string, 10)}
	e.say(t, "go")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan End)
	go func() {
		done <- e.agent.Run(ctx, Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: ft})
	}()
	for name := range ft.started {
		if name == "slow" {
			break
		}
	}
	cancel(ErrStoppedByUser)
	end := <-done
	if end.Reason != "interrupted" {
		t.Fatalf("end = %+v", end)
	}
	if got := e.types(); got != "user,assistant,usage,tool_start,tool_result,tool_result,interrupted,turn_end" {
		t.Fatalf("events = %s", got)
	}
	res := e.results(t)
	if !res[1].Interrupted || !strings.Contains(res[1].Text, "partial output") {
		t.Fatalf("interrupted result %+v", res[1])
	}
	// Continue: only c3 (never started) runs; c1 is not re-run, the slow one is not re-run.
	ft.started = nil
	end = e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: ft})
	if end.Reason != "done" {
		t.Fatalf("continue: %+v", end)
	}
	runs := ft.ran()
	if len(runs) != 3 || runs[2] != `write {"path":"b"}` {
		t.Fatalf("runs = %v", runs)
	}
	if got := e.types(); !strings.HasSuffix(got, "turn_end,tool_start,tool_result,assistant,usage,turn_end") {
		t.Fatalf("after continue: %s", got)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	t.Run("repeated identical calls", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.model.Default(scripted.Reply{ToolCalls: []llm.ToolCall{call("c", "read", `{"path":"same"}`)}})
		e.say(t, "go")
		end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: &fakeTools{}})
		if end.Reason != "repeated_call" || end.Steps != repeatLimit {
			t.Fatalf("end = %+v", end)
		}
	})
	t.Run("max cost", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		n := 0
		e.model.DefaultFunc(func(llm.Request) scripted.Reply {
			n++
			return scripted.Reply{ToolCalls: []llm.ToolCall{call(fmt.Sprint(n), "read", fmt.Sprintf(`{"path":"%d"}`, n))}, PromptTokens: 1000}
		})
		e.say(t, "go")
		// $0.004 per call (1,000 tokens at $4/M): a $0.01 budget allows three calls.
		end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: &fakeTools{},
			MaxCostUSD: 0.01, Price: func(_ string, u llm.Usage) float64 { return float64(u.InputTokens) * 4e-6 }})
		if end.Reason != "max_cost" || end.Steps != 3 {
			t.Fatalf("end = %+v", end)
		}
	})
	t.Run("max steps", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		n := 0
		e.model.DefaultFunc(func(llm.Request) scripted.Reply {
			n++
			return scripted.Reply{ToolCalls: []llm.ToolCall{call(fmt.Sprint(n), "read", fmt.Sprintf(`{"path":"%d"}`, n))}}
		})
		e.say(t, "go")
		end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: &fakeTools{}, MaxSteps: 4})
		if end.Reason != "max_steps" || end.Steps != 4 || len(e.model.Chats()) != 4 {
			t.Fatalf("end = %+v after %d calls", end, len(e.model.Chats()))
		}
	})
}

func TestModelFailureEndsTheTurn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.Default(scripted.Reply{Status: 500, Error: "boom"})
	e.say(t, "go")
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: &fakeTools{}})
	var le *llm.Error
	if end.Reason != "error" || !errors.As(end.Err, &le) || le.Kind != llm.ErrServer {
		t.Fatalf("end = %+v", end)
	}
	if got := e.types(); got != "user,error,turn_end" {
		t.Fatalf("events = %s", got)
	}
}

func TestUsageCarriesLocalCountAndCost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.Default(scripted.Reply{Text: "a short answer", PromptTokens: 1000, OutputTokens: 10})
	e.say(t, "question")
	e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName,
		Price: func(model string, u llm.Usage) float64 {
			return float64(u.InputTokens)*2e-6 + float64(u.OutputTokens)*10e-6
		}})
	evs, _ := e.st.Events(e.sess)
	var u llm.Usage
	for _, ev := range evs {
		if ev.Type == store.EventUsage {
			ev.Decode(&u)
		}
	}
	if u.InputTokens != 1000 || u.LocalInputTokens == 0 || u.LocalOutputTokens != 3 || u.CostUSD != 0.0021 {
		t.Fatalf("usage = %+v", u)
	}
}
