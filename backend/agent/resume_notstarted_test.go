package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// killedBeforeLaunch writes the log of a Tofu killed after a command's start was recorded but
// before its process began (no process event): c1 is that command, c2 a command that launched.
func killedBeforeLaunch(t *testing.T, e *env) {
	t.Helper()
	e.say(t, "go")
	g := crashedGroup("")
	g.CallID = "c2"
	for _, ev := range []struct {
		typ store.EventType
		v   any
	}{
		{store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{
			call("c1", "run_command", `{"command":"make"}`), call("c2", "run_command", `{"command":"make test"}`)}}},
		{store.EventToolStart, store.ToolStart{CallID: "c1", Name: "run_command"}},
		{store.EventToolStart, store.ToolStart{CallID: "c2", Name: "run_command"}},
		{store.EventProcess, g},
	} {
		if _, err := e.st.Append(e.sess, ev.typ, ev.v); err != nil {
			t.Fatal(err)
		}
	}
}

// A command whose process never began did not run: Continue says so instead of "it may have
// run partly" (issue 32), and still runs nothing again; the command that launched keeps the
// warning.
func TestContinueSaysACommandKilledBeforeItsProcessDidNotRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	killedBeforeLaunch(t, e)
	e.model.Default(scripted.Reply{Text: "ok"})
	ft := &fakeTools{}
	if end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: ft}); end.Reason != "done" {
		t.Fatalf("end %+v", end)
	}
	if runs := ft.ran(); len(runs) != 0 {
		t.Fatalf("runs %v", runs)
	}
	res := e.results(t)
	if len(res) != 2 || res[0].Text != neverStarted || strings.Contains(res[0].Text, "may have run") ||
		!strings.Contains(res[1].Text, "may have run partly") {
		t.Fatalf("results %+v", res)
	}
}

// The same log read with a new message instead of Continue.
func TestNewMessageSaysACommandKilledBeforeItsProcessDidNotRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	killedBeforeLaunch(t, e)
	e.say(t, "what happened?")
	evs, _ := e.st.Events(e.sess)
	got := map[string]string{}
	for _, m := range Messages(evs) {
		if m.Role == llm.RoleTool {
			got[m.ToolCallID] = m.Content
		}
	}
	if got["c1"] != neverStarted || got["c2"] != mayHaveRun {
		t.Fatalf("tool messages %v", got)
	}
}
