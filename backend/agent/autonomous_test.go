package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// roleOf tells the phase of a request from its system prompt.
func roleOf(r llm.Request) store.PhaseRole {
	if len(r.Messages) > 0 && r.Messages[0].Role == llm.RoleSystem {
		switch {
		case strings.Contains(r.Messages[0].Content, "You are the planner"):
			return store.RolePlanner
		case strings.Contains(r.Messages[0].Content, "You are the critic"):
			return store.RoleCritic
		}
	}
	return store.RoleWorker
}

// autoScript is a scripted autonomous run: the planner answers with a plan, the worker makes
// one write per round and then reports, the critic answers critiques[i] on its i-th review
// (the last one again when they run out).
type autoScript struct {
	mu        sync.Mutex
	critiques []string
	reviews   int
	plans     int
	requests  map[store.PhaseRole][]llm.Request
}

func (s *autoScript) install(e *env) {
	s.requests = map[store.PhaseRole][]llm.Request{}
	e.model.DefaultFunc(func(r llm.Request) scripted.Reply {
		s.mu.Lock()
		defer s.mu.Unlock()
		role := roleOf(r)
		s.requests[role] = append(s.requests[role], r)
		switch role {
		case store.RolePlanner:
			s.plans++
			return scripted.Reply{Text: fmt.Sprintf("1. Fix a.go (plan %d)\n2. Run the tests", s.plans)}
		case store.RoleCritic:
			c := s.critiques[min(s.reviews, len(s.critiques)-1)]
			s.reviews++
			return scripted.Reply{Text: c}
		}
		if r.Messages[len(r.Messages)-1].Role == llm.RoleUser {
			n := len(s.requests[role])
			return scripted.Reply{ToolCalls: []llm.ToolCall{call(fmt.Sprint("w", n), "write", fmt.Sprintf(`{"path":"a%d.go"}`, n))}}
		}
		return scripted.Reply{Text: "Changed a.go; the tests pass."}
	})
}

func (e *env) phases(t *testing.T) []store.Phase {
	t.Helper()
	evs, _ := e.st.Events(e.sess)
	var out []store.Phase
	for _, ev := range evs {
		if ev.Type == store.EventPhase {
			var p store.Phase
			if err := ev.Decode(&p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

// phaseLine renders the phase events compactly: "planner1 worker1 worker1:done critic1:STOP".
func phaseLine(ps []store.Phase) string {
	var s []string
	for _, p := range ps {
		x := fmt.Sprintf("%s%d", p.Role, p.Iteration)
		if p.State == "end" {
			x += ":" + string(p.Reason)
			if p.Verdict != "" {
				x = fmt.Sprintf("%s%d:%s", p.Role, p.Iteration, p.Verdict)
			}
		}
		s = append(s, x)
	}
	return strings.Join(s, " ")
}

func (e *env) turnEnd(t *testing.T) store.TurnEnd {
	t.Helper()
	evs, _ := e.st.Events(e.sess)
	var te store.TurnEnd
	n := 0
	for _, ev := range evs {
		if ev.Type == store.EventTurnEnd {
			ev.Decode(&te)
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d turn_end events", n)
	}
	return te
}

func (e *env) runAuto(t *testing.T, opts AutoOptions) End {
	t.Helper()
	return e.agent.RunAutonomous(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Workspace: "/ws", System: "worker prompt", Tools: &fakeTools{}}, opts)
}

func TestAutonomousContinueWorkerThenStop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := &autoScript{critiques: []string{
		"a.go is fixed.\n- [ ] b.go is not fixed yet\nVERDICT: CONTINUE_WORKER",
		"Checked a.go and b.go; the tests pass.\nVERDICT: STOP",
	}}
	s.install(e)
	e.say(t, "fix the bug in a.go and b.go")
	end := e.runAuto(t, AutoOptions{})
	if end.Reason != "done" {
		t.Fatalf("end = %+v (%v)", end, end.Err)
	}
	want := "planner1 planner1:done worker1 worker1:done critic1 critic1:CONTINUE_WORKER worker2 worker2:done critic2 critic2:STOP"
	if got := phaseLine(e.phases(t)); got != want {
		t.Fatalf("phases:\n got %s\nwant %s", got, want)
	}
	// 1 planner call, 2 per worker round, 1 per review.
	if end.Steps != 7 || len(e.model.Chats()) != 7 {
		t.Fatalf("steps %d, calls %d", end.Steps, len(e.model.Chats()))
	}
	if te := e.turnEnd(t); te.Reason != "done" || te.Steps != 7 {
		t.Fatalf("turn_end %+v", te)
	}
	ps := e.phases(t)
	if ps[1].Plan != "1. Fix a.go (plan 1)\n2. Run the tests" || ps[5].Feedback != "a.go is fixed.\n- [ ] b.go is not fixed yet" {
		t.Fatalf("plan %q, feedback %q", ps[1].Plan, ps[5].Feedback)
	}

	// The worker's second round sees the task, the plan, its first round and the critique,
	// never the planner's or the critic's own messages.
	w := s.requests[store.RoleWorker]
	last := w[len(w)-1]
	var roles []string
	for _, m := range last.Messages {
		roles = append(roles, string(m.Role))
		if m.Role == llm.RoleAssistant && (strings.Contains(m.Content, "VERDICT") || strings.Contains(m.Content, "plan 1")) {
			t.Fatalf("the worker sees a planner or critic reply: %q", m.Content)
		}
	}
	if got := strings.Join(roles, ","); got != "system,user,user,assistant,tool,assistant,user,assistant,tool" {
		t.Fatalf("worker round 2 roles: %s", got)
	}
	if !strings.HasPrefix(last.Messages[2].Content, "Plan:\n1. Fix a.go") || !strings.Contains(last.Messages[6].Content, "- [ ] b.go is not fixed yet") {
		t.Fatalf("worker briefs: %q / %q", last.Messages[2].Content, last.Messages[6].Content)
	}
	if last.Messages[0].Content != "worker prompt" {
		t.Fatalf("worker system prompt %q", last.Messages[0].Content)
	}

	// The critic has its own prompt, a brief built from the log, and only the read-only tools.
	c := s.requests[store.RoleCritic][1]
	if len(c.Messages) != 2 {
		t.Fatalf("critic messages: %+v", c.Messages)
	}
	brief := c.Messages[1].Content
	for _, want := range []string{"Task:\nfix the bug in a.go and b.go", "Plan:\n1. Fix a.go", "Round 1:", "- write {\"path\":\"a1.go\"} → ok: wrote", "Round 2:", "Files changed: a.go", "The worker's answer (round 2):\nChanged a.go", "Your previous review:\na.go is fixed."} {
		if !strings.Contains(brief, want) {
			t.Fatalf("critic brief lacks %q:\n%s", want, brief)
		}
	}
	var names []string
	for _, spec := range c.Tools {
		names = append(names, spec.Name)
	}
	if got := strings.Join(names, ","); got != "read,slow" {
		t.Fatalf("critic tools: %s", got)
	}
	if p := s.requests[store.RolePlanner][0]; len(p.Messages) != 2 || p.Messages[1].Content != "Task:\nfix the bug in a.go and b.go\n\nWrite the plan." {
		t.Fatalf("planner request: %+v", p.Messages)
	}
}

func TestAutonomousGateRefusesStopWithFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := &autoScript{critiques: []string{
		"Looks good overall, but TestParse still fails.\nVERDICT: STOP",
		"All tests pass, no errors.\n**VERDICT: STOP**",
	}}
	s.install(e)
	e.say(t, "make the tests pass")
	end := e.runAuto(t, AutoOptions{})
	if end.Reason != "done" {
		t.Fatalf("end = %+v", end)
	}
	ps := e.phases(t)
	if got := phaseLine(ps); got != "planner1 planner1:done worker1 worker1:done critic1 critic1:CONTINUE_WORKER worker2 worker2:done critic2 critic2:STOP" {
		t.Fatalf("phases: %s", got)
	}
	if ps[5].Claimed != "STOP" || !strings.Contains(ps[5].Gate, "TestParse still fails") {
		t.Fatalf("gate not recorded: %+v", ps[5])
	}
	// The worker is told, and so is the critic.
	if !strings.Contains(ps[6].Brief, "TestParse still fails") || !strings.Contains(ps[6].Brief, "the feedback still lists failures") {
		t.Fatalf("worker brief: %q", ps[6].Brief)
	}
	if !strings.Contains(ps[8].Brief, "Your last STOP was not accepted") {
		t.Fatalf("critic brief: %q", ps[8].Brief)
	}
}

func TestAutonomousReplanIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := &autoScript{critiques: []string{
		"The plan edits the wrong package.\nVERDICT: CONTINUE_PLANNER",
		"Still the wrong approach: the parser, not the lexer, drops the token.\nVERDICT: CONTINUE_PLANNER",
		"Please start over from a completely different design using a state machine.\nVERDICT: CONTINUE_PLANNER",
		"Verified.\nVERDICT: STOP",
	}}
	s.install(e)
	e.say(t, "fix the parser")
	end := e.runAuto(t, AutoOptions{MaxReplans: 2})
	if end.Reason != "done" {
		t.Fatalf("end = %+v", end)
	}
	ps := e.phases(t)
	want := "planner1 planner1:done worker1 worker1:done critic1 critic1:CONTINUE_PLANNER " +
		"planner2 planner2:done worker2 worker2:done critic2 critic2:CONTINUE_PLANNER " +
		"planner3 planner3:done worker3 worker3:done critic3 critic3:CONTINUE_WORKER " +
		"worker4 worker4:done critic4 critic4:STOP"
	if got := phaseLine(ps); got != want {
		t.Fatalf("phases:\n got %s\nwant %s", got, want)
	}
	if s.plans != 3 {
		t.Fatalf("%d plans", s.plans)
	}
	third := ps[17]
	if third.Claimed != "CONTINUE_PLANNER" || !strings.Contains(third.Gate, "replan limit (2)") {
		t.Fatalf("critic 3: %+v", third)
	}
	// The replan is told the previous plan, the work and why.
	replan := s.requests[store.RolePlanner][1].Messages[1].Content
	for _, want := range []string{"The previous plan:\n1. Fix a.go (plan 1)", "Work done so far:", "after round 1:\nThe plan edits the wrong package.", "Write a revised plan."} {
		if !strings.Contains(replan, want) {
			t.Fatalf("replan brief lacks %q:\n%s", want, replan)
		}
	}
	if !strings.HasPrefix(ps[8].Brief, "Revised plan (the critic asked for one after round 1):\n1. Fix a.go (plan 2)") {
		t.Fatalf("worker 2 brief: %q", ps[8].Brief)
	}
}

func TestAutonomousStuckWhenCritiquesRepeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := &autoScript{critiques: []string{
		"- [ ] TestParse fails: expected 3 tokens, got 2\nVERDICT: CONTINUE_WORKER",
		"- [ ] TestParse fails: expected 3 tokens, got 2!\n\nVERDICT: CONTINUE_WORKER",
	}}
	s.install(e)
	e.say(t, "fix the parser")
	end := e.runAuto(t, AutoOptions{})
	if end.Reason != "stuck" || !strings.Contains(end.Err.Error(), "TestParse fails") {
		t.Fatalf("end = %+v", end)
	}
	if got := phaseLine(e.phases(t)); got != "planner1 planner1:done worker1 worker1:done critic1 critic1:CONTINUE_WORKER worker2 worker2:done critic2 critic2:CONTINUE_WORKER" {
		t.Fatalf("phases: %s", got)
	}
	if te := e.turnEnd(t); te.Reason != "stuck" || !strings.Contains(te.Detail, "repeated its critique") {
		t.Fatalf("turn_end %+v", te)
	}
}

func TestAutonomousIterationLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := &autoScript{critiques: []string{
		"- [ ] the lexer test fails\nVERDICT: CONTINUE_WORKER",
		"- [ ] now the parser benchmark regressed by a lot\nVERDICT: CONTINUE_WORKER",
		"- [ ] the documentation for Parse is missing entirely\nVERDICT: CONTINUE_WORKER",
		"- [ ] go vet reports an unused variable in main\nVERDICT: CONTINUE_WORKER",
	}}
	s.install(e)
	e.say(t, "fix the parser")
	end := e.runAuto(t, AutoOptions{MaxIterations: 3})
	if end.Reason != "max_iterations" {
		t.Fatalf("end = %+v", end)
	}
	if got := phaseLine(e.phases(t)); got != "planner1 planner1:done worker1 worker1:done critic1 critic1:CONTINUE_WORKER worker2 worker2:done critic2 critic2:CONTINUE_WORKER worker3 worker3:done critic3 critic3:CONTINUE_WORKER" {
		t.Fatalf("phases: %s", got)
	}
	if te := e.turnEnd(t); te.Reason != "max_iterations" || te.Steps != 1+3*3 {
		t.Fatalf("turn_end %+v", te)
	}
}

func TestAutonomousInterruptThenContinue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mu sync.Mutex
	workerCalls := 0
	e.model.DefaultFunc(func(r llm.Request) scripted.Reply {
		mu.Lock()
		defer mu.Unlock()
		switch roleOf(r) {
		case store.RolePlanner:
			return scripted.Reply{Text: "1. Run the slow check"}
		case store.RoleCritic:
			return scripted.Reply{Text: "Verified.\nVERDICT: STOP"}
		}
		workerCalls++
		if workerCalls == 1 {
			return scripted.Reply{ToolCalls: []llm.ToolCall{call("s1", "slow", `{}`), call("w1", "write", `{"path":"a.go"}`)}}
		}
		return scripted.Reply{Text: "done"}
	})
	ft := &fakeTools{started: make(chan string, 10)}
	e.say(t, "check")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan End)
	turn := Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: ft}
	go func() { done <- e.agent.RunAutonomous(ctx, turn, AutoOptions{}) }()
	for name := range ft.started {
		if name == "slow" {
			break
		}
	}
	cancel(ErrStoppedByUser)
	if end := <-done; end.Reason != "interrupted" {
		t.Fatalf("end = %+v", end)
	}
	if got := phaseLine(e.phases(t)); got != "planner1 planner1:done worker1" {
		t.Fatalf("phases after the stop: %s", got)
	}
	// Continue: the round goes on (the write that never started runs), no new plan.
	ft.started = nil
	end := e.agent.RunAutonomous(context.Background(), turn, AutoOptions{})
	if end.Reason != "done" {
		t.Fatalf("continue: %+v", end)
	}
	if got := phaseLine(e.phases(t)); got != "planner1 planner1:done worker1 worker1:done critic1 critic1:STOP" {
		t.Fatalf("phases: %s", got)
	}
	if runs := ft.ran(); len(runs) != 2 || runs[1] != `write {"path":"a.go"}` {
		t.Fatalf("runs %v", runs)
	}
}

func TestAutonomousCriticRunsOnlyWhatIsAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.DefaultFunc(func(r llm.Request) scripted.Reply {
		switch roleOf(r) {
		case store.RolePlanner:
			return scripted.Reply{Text: "1. Edit"}
		case store.RoleCritic:
			if toolResults(r) == 0 {
				// An edit is not offered; a read the policy would ask about is denied.
				return scripted.Reply{ToolCalls: []llm.ToolCall{call("c1", "write", `{"path":"x"}`), call("c2", "read", `{"path":"/etc/passwd"}`)}}
			}
			return scripted.Reply{Text: "Verified.\nVERDICT: STOP"}
		}
		if toolResults(r) == 0 {
			return scripted.Reply{ToolCalls: []llm.ToolCall{call("w1", "read", `{"path":"/etc/passwd"}`)}}
		}
		return scripted.Reply{Text: "done"}
	})
	ft := &fakeTools{}
	asked := 0
	e.say(t, "go")
	end := e.agent.RunAutonomous(context.Background(), Turn{
		Session: e.sess, Model: scripted.DemoModelName, Tools: ft,
		Policy: policyFunc(func(c tools.Call, a []tools.Access) Verdict {
			return Verdict{Action: Ask, Subject: a[0].Path, Reason: "outside the workspace"}
		}),
		Approver: approverFunc(func(store.Approval) (string, error) { asked++; return "allow", nil }),
	}, AutoOptions{})
	if end.Reason != "done" {
		t.Fatalf("end = %+v", end)
	}
	if asked != 1 || len(ft.ran()) != 1 {
		t.Fatalf("asked %d times, ran %v", asked, ft.ran())
	}
	res := e.results(t)
	if len(res) != 3 || !strings.Contains(res[1].Text, `Unknown tool "write": the critic does not change anything`) ||
		!strings.Contains(res[2].Text, "run only what is allowed without asking") {
		t.Fatalf("results %+v", res)
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, verdict, claimed, feedback string }{
		{"All good.\nVERDICT: STOP", "STOP", "", "All good."},
		{"VERDICT: continue_worker\n- [ ] fix b", "CONTINUE_WORKER", "", "- [ ] fix b"},
		{"Plan is wrong.\n\n**Verdict:** CONTINUE_PLANNER", "CONTINUE_PLANNER", "", "Plan is wrong."},
		{"verdict - CONTINUE WORKER", "CONTINUE_WORKER", "", ""},
		{"I think so. VERDICT: STOP? No:\nVERDICT: CONTINUE_WORKER", "CONTINUE_WORKER", "", "I think so. VERDICT: STOP? No:"},
		{"no verdict here", "CONTINUE_WORKER", "", "no verdict here"},
		{"Done, but 2 tests failed.\nVERDICT: STOP", "CONTINUE_WORKER", "STOP", "Done, but 2 tests failed."},
	} {
		p := judge(c.text)
		if string(p.Verdict) != c.verdict || string(p.Claimed) != c.claimed || p.Feedback != c.feedback {
			t.Errorf("%q: %+v", c.text, p)
		}
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	listed := []string{
		"- [ ] handle empty input",
		"TestParse fails with a nil pointer",
		"go test: 1 failed",
		"The build error in main.go is not fixed",
		"The parser is still broken on CRLF input",
		"There is an error when the file is missing.",
		"Edge cases: doesn't pass TestEmpty",
		"Fixed a.go; b.go still fails",
	}
	for _, l := range listed {
		if len(failures(l)) == 0 {
			t.Errorf("not seen as a failure: %q", l)
		}
	}
	fine := []string{
		"- [x] handle empty input",
		"All 12 tests pass, no failures.",
		"go test ./...: ok, 0 failed",
		"Failures: 0, errors: 0",
		"No errors or warnings from go vet.",
		"The failing test now passes.",
		"Fixed the error in parse.go and verified with go test.",
		"Error handling follows the existing style.",
		"Ran sh test.sh: all tests pass",
		"Nothing failed.",
	}
	for _, l := range fine {
		if got := failures(l); len(got) != 0 {
			t.Errorf("seen as a failure: %q", l)
		}
	}
}

func TestSameCritique(t *testing.T) {
	t.Parallel()
	a := "- [ ] TestParse fails: expected 3 tokens, got 2. The lexer drops the last token."
	for _, c := range []struct {
		b    string
		same bool
	}{
		{a, true},
		{"- [ ]  testparse FAILS: expected 3 tokens, got 2 -- the lexer drops the last token!", true},
		{"- [ ] TestParse fails: expected 3 tokens, got 2. The lexer drops the final token.", true},
		{"- [ ] TestLex fails: the lexer reads past the end of input on an empty string.", false},
		{"", false},
	} {
		if got := sameCritique(a, c.b); got != c.same {
			t.Errorf("%q: same = %v", c.b, got)
		}
	}
	if !sameCritique("", "") || sameCritique("Too short.", "Too long.") {
		t.Error("short critiques")
	}
}

func TestMessagesOfAnAutonomousLog(t *testing.T) {
	t.Parallel()
	msgs := Messages([]store.Event{
		ev(store.EventUser, store.UserMessage{Text: "task"}),
		ev(store.EventPhase, store.Phase{Role: "planner", Iteration: 1, State: "start", Brief: "Task: task"}),
		ev(store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{call("p1", "read", `{}`)}}),
		ev(store.EventToolResult, store.ToolResult{CallID: "p1", Name: "read", Text: "x"}),
		ev(store.EventAssistant, store.AssistantMessage{Text: "1. do it"}),
		ev(store.EventPhase, store.Phase{Role: "planner", Iteration: 1, State: "end", Plan: "1. do it"}),
		ev(store.EventPhase, store.Phase{Role: "worker", Iteration: 1, State: "start", Brief: "Plan:\n1. do it"}),
		ev(store.EventAssistant, store.AssistantMessage{Text: "did it"}),
		ev(store.EventPhase, store.Phase{Role: "worker", Iteration: 1, State: "end"}),
		ev(store.EventPhase, store.Phase{Role: "critic", Iteration: 1, State: "start"}),
		ev(store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{call("c1", "read", `{}`)}}),
	})
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Role)+":"+m.Content)
	}
	if s := strings.Join(got, "|"); s != "user:task|user:Plan:\n1. do it" {
		t.Fatalf("messages: %q", s)
	}
	// The critic's call left without a result is not the worker's to run.
	if p := Pending([]store.Event{
		ev(store.EventPhase, store.Phase{Role: "critic", Iteration: 1, State: "start"}),
		ev(store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{call("c1", "read", `{}`)}}),
		ev(store.EventPhase, store.Phase{Role: "worker", Iteration: 2, State: "start"}),
	}); len(p) != 0 {
		t.Fatalf("pending %+v", p)
	}
}
