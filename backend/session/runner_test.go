package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

type fixture struct {
	st     *store.Store
	model  *scripted.Server
	runner *Runner
	cfg    config.Config
	ws     string
}

// newFixture is a runner on a real store and the scripted model, with extra tool families.
func newFixture(t *testing.T, families ...ToolFamily) *fixture {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := scripted.New(t, scripted.DemoModel())
	f := &fixture{st: st, model: srv, ws: t.TempDir()}
	f.cfg.Models.Main = scripted.DemoModelName
	provider := ollama.New(srv.URL)
	f.runner = New(Options{
		Store:    st,
		Provider: func() (llm.Provider, string, error) { return provider, srv.URL, nil },
		Config:   func() (config.Config, error) { return f.cfg, nil },
		Tools:    families,
	})
	t.Cleanup(f.runner.Shutdown)
	return f
}

// session starts an agent session in the fixture's workspace (plain chat when ws is "") with
// the user's message.
func (f *fixture) session(t *testing.T, ws, text string) string {
	t.Helper()
	info, err := f.st.CreateSession("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Workspace = ws }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Append(info.ID, store.EventUser, store.UserMessage{Text: text}); err != nil {
		t.Fatal(err)
	}
	return info.ID
}

func (f *fixture) results(t *testing.T, session string) []store.ToolResult {
	t.Helper()
	evs, _ := f.st.Events(session)
	var out []store.ToolResult
	for _, ev := range evs {
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
			out = append(out, r)
		}
	}
	return out
}

func toolCall(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// firstStep matches the first model call of a turn (no tool result yet).
func firstStep(r llm.Request) bool {
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool {
			return false
		}
	}
	return true
}

type noParams struct{}

// blocking is a tool family whose "block" tool runs until its turn is stopped (or release is
// closed), saying when it started.
func blocking(started chan<- string, release <-chan struct{}) ToolFamily {
	return func(reg *tools.Registry, spec Spec) (func(), error) {
		return nil, reg.Add(tools.Define(tools.Def[noParams]{
			Name: "block", Description: "Waits.", ReadOnly: true,
			Run: func(ctx context.Context, _ tools.Call, _ noParams) (tools.Result, error) {
				started <- spec.Session
				select {
				case <-ctx.Done():
				case <-release:
				}
				return tools.Result{Text: "unblocked"}, nil
			},
		}))
	}
}

// TestToolFamiliesEquipAgentTurns: a family's tools are offered and run in an agent turn, it
// learns the turn's session and workspace, and what it holds is released when the turn ends.
func TestToolFamiliesEquipAgentTurns(t *testing.T) {
	t.Parallel()
	var spec Spec
	var released atomic.Int32
	family := func(reg *tools.Registry, s Spec) (func(), error) {
		spec = s
		return func() { released.Add(1) }, reg.Add(tools.Define(tools.Def[noParams]{
			Name: "probe", Description: "Probes.", ReadOnly: true,
			Run: func(context.Context, tools.Call, noParams) (tools.Result, error) {
				return tools.Result{Text: "probed"}, nil
			},
		}))
	}
	f := newFixture(t, family)
	f.model.On(firstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "probe", `{}`)}})
	f.model.Default(scripted.Reply{Text: "done"})
	id := f.session(t, f.ws, "probe it")
	end, err := f.runner.Run(context.Background(), Request{Session: id})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("end = %+v, %v", end, err)
	}
	if spec.Session != id || spec.Workspace != f.ws || len(spec.Events) != 1 {
		t.Fatalf("spec = %+v", spec)
	}
	if res := f.results(t, id); len(res) != 1 || res[0].Text != "probed" {
		t.Fatalf("results = %+v", res)
	}
	if released.Load() != 1 {
		t.Fatalf("released %d times", released.Load())
	}
	// A plain conversation has no tools: the family is not asked.
	spec = Spec{}
	plain := f.session(t, "", "hello")
	if end, err := f.runner.Run(context.Background(), Request{Session: plain}); err != nil || end.Reason != store.EndDone {
		t.Fatalf("plain end = %+v, %v", end, err)
	}
	if spec.Session != "" {
		t.Fatalf("a plain conversation was equipped: %+v", spec)
	}
}

// TestBusyStopAndShutdown: one turn per session; Stop interrupts it, and Ended sees the session
// free; Shutdown stops every turn and waits for them.
func TestBusyStopAndShutdown(t *testing.T) {
	t.Parallel()
	started := make(chan string, 4)
	f := newFixture(t, blocking(started, nil))
	f.model.On(firstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "block", `{}`)}})
	f.model.Default(scripted.Reply{Text: "done"})
	id := f.session(t, f.ws, "wait")
	freeAtEnd := make(chan bool, 1)
	turn, err := f.runner.Start(context.Background(), Request{Session: id, Ended: func(agent.End) {
		freeAtEnd <- !f.runner.Busy(id)
	}})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if !f.runner.Busy(id) || len(f.runner.Running()) != 1 {
		t.Fatal("the running turn is not listed")
	}
	if _, err := f.runner.Start(context.Background(), Request{Session: id}); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Start: %v, want ErrBusy", err)
	}
	f.runner.Stop(id)
	if end := turn.Wait(); end.Reason != store.EndInterrupted {
		t.Fatalf("end = %+v", end)
	}
	if !<-freeAtEnd {
		t.Fatal("the session was still busy when Ended ran")
	}

	// Two sessions at once; Shutdown stops both and records why.
	a, b := f.session(t, f.ws, "a"), f.session(t, f.ws, "b")
	for _, s := range []string{a, b} {
		if _, err := f.runner.Start(context.Background(), Request{Session: s}); err != nil {
			t.Fatal(err)
		}
	}
	<-started
	<-started
	f.runner.Shutdown()
	if n := len(f.runner.Running()); n != 0 {
		t.Fatalf("%d turns still running", n)
	}
	for _, s := range []string{a, b} {
		evs, _ := f.st.Events(s)
		var why store.Interruption
		for _, ev := range evs {
			if ev.Type == store.EventInterrupted {
				ev.Decode(&why)
			}
		}
		if why.Reason != store.InterruptShutdown {
			t.Fatalf("session %s: interruption %+v", s, why)
		}
	}
}

// TestQuestionsMailbox: ask_human is offered only when the caller answers questions, and the
// answer reaches the call even when it comes before the call waits.
func TestQuestionsMailbox(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.model.On(firstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{toolCall("q1", "ask_human", `{"question":"Which file?"}`)}})
	f.model.Default(scripted.Reply{Text: "thanks"})
	if err := f.runner.Answer("nope", "q1", "x"); !errors.Is(err, ErrNoQuestion) {
		t.Fatalf("Answer without a turn: %v", err)
	}
	id := f.session(t, f.ws, "ask me")
	turn, err := f.runner.Start(context.Background(), Request{Session: id, Questions: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.runner.Answer(id, "q1", "main.go"); err != nil {
		t.Fatal(err)
	}
	if end := turn.Wait(); end.Reason != store.EndDone {
		t.Fatalf("end = %+v", end)
	}
	if res := f.results(t, id); len(res) != 1 || !strings.Contains(res[0].Text, "main.go") {
		t.Fatalf("results = %+v", res)
	}
	// Headless (no Questions): the tool is not there, and nothing can be answered.
	headless := f.session(t, f.ws, "ask me")
	turn, err = f.runner.Start(context.Background(), Request{Session: headless})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.runner.Answer(headless, "q1", "x"); !errors.Is(err, ErrNoQuestion) && turn != nil {
		// The turn may already have ended; either way the answer is refused.
		t.Fatalf("Answer to a headless turn: %v", err)
	}
	turn.Wait()
	if res := f.results(t, headless); len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "ask_human") {
		t.Fatalf("headless results = %+v", res)
	}
}

// TestApprovalThroughTheRunner: an ask reaches Prompt once its event is durable, and
// Runner.Approve lets the call run.
func TestApprovalThroughTheRunner(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.model.On(firstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write_file", `{"path":"a.txt","content":"hi"}`)}})
	f.model.Default(scripted.Reply{Text: "written"})
	id := f.session(t, f.ws, "write a.txt")
	var asked []store.Approval
	end, err := f.runner.Run(context.Background(), Request{Session: id, Prompt: func(ap store.Approval) {
		asked = append(asked, ap)
		if err := f.runner.Approve(id, ap.CallID, "allow"); err != nil {
			t.Error(err)
		}
	}})
	if err != nil || end.Reason != store.EndDone {
		t.Fatalf("end = %+v, %v", end, err)
	}
	if len(asked) != 1 || asked[0].Name != "write_file" {
		t.Fatalf("asked = %+v", asked)
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "a.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
	if err := f.runner.Approve(id, "w1", "sometimes"); err == nil {
		t.Fatal("an unknown answer was accepted")
	}
}

// TestFailedWriteReachesTheCaller: the store fails under a running turn (it is closed while
// a tool runs): the turn ends with agent.ErrLog, and Ended hears it, since the log cannot say it.
func TestFailedWriteReachesTheCaller(t *testing.T) {
	t.Parallel()
	started, release := make(chan string, 1), make(chan struct{})
	f := newFixture(t, blocking(started, release))
	f.model.On(firstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "block", `{}`)}})
	f.model.Default(scripted.Reply{Text: "done"})
	id := f.session(t, f.ws, "wait")
	ended := make(chan agent.End, 1)
	turn, err := f.runner.Start(context.Background(), Request{Session: id, Ended: func(e agent.End) { ended <- e }})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	f.st.Close()
	close(release)
	end := turn.Wait()
	if end.Reason != store.EndError || !errors.Is(end.Err, agent.ErrLog) {
		t.Fatalf("end = %+v", end)
	}
	if got := <-ended; !errors.Is(got.Err, agent.ErrLog) {
		t.Fatalf("Ended got %+v", got)
	}
}

// TestNothingToAnswer: a turn that cannot be built says why before anything runs.
func TestNothingToAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.st.CreateSession("")
	id := info.ID
	if _, err := f.runner.Start(context.Background(), Request{Session: id}); err == nil || !strings.Contains(err.Error(), "no message to answer") {
		t.Fatalf("Start on an empty conversation: %v", err)
	}
	if f.runner.Busy(id) {
		t.Fatal("a refused turn left the session busy")
	}
	gone := f.session(t, filepath.Join(f.ws, "missing"), "work")
	if _, err := f.runner.Start(context.Background(), Request{Session: gone}); err == nil || !strings.Contains(err.Error(), "workspace is gone") {
		t.Fatalf("Start in a missing workspace: %v", err)
	}
}

// TestContextPolicyFromSettings: the settings name the policy and tune it; a request may name
// another, or replace it.
func TestContextPolicyFromSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := config.Config{Context: "l1", ContextTuning: json.RawMessage(`{"l1": {"hot_results": 7}}`)}
	m, err := f.runner.contextManager(cfg, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.L0.Enabled || !m.Config.L1.Enabled || m.Config.L1.HotResults != 7 || m.Config.L1.MinChars != compact.Defaults().L1.MinChars {
		t.Fatalf("config = %+v", m.Config)
	}
	if _, err := f.runner.contextManager(cfg, nil, "nope", nil); err == nil {
		t.Fatal("an unknown --context was accepted")
	}
	off := compact.Off()
	if m, err := f.runner.contextManager(cfg, nil, "", &off); err != nil || m.Config.L1.Enabled {
		t.Fatalf("--context-config was not applied: %+v, %v", m, err)
	}
}
