package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// crashedStep writes the log a Tofu killed in the middle of a step leaves: three calls, the
// first (a write) started and launched a command that printed "half done", no results.
func crashedStep(t *testing.T, e *env) string {
	t.Helper()
	spool := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(spool, []byte("half done\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.say(t, "go")
	for _, ev := range []struct {
		typ store.EventType
		v   any
	}{
		{store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{
			call("c1", "write", `{"path":"a"}`), call("c2", "read", `{"path":"r"}`), call("c3", "write", `{"path":"b"}`)}}},
		{store.EventToolStart, store.ToolStart{CallID: "c1", Name: "write"}},
		{store.EventProcess, crashedGroup(spool)},
	} {
		if _, err := e.st.Append(e.sess, ev.typ, ev.v); err != nil {
			t.Fatal(err)
		}
	}
	return spool
}

// crashedGroup is the record of a group whose Tofu is gone (this process, as if its pid had
// been reused) and that has no process left (no group has an id above the pid limit).
func crashedGroup(output string) procgroup.Group {
	g := procgroup.Describe(os.Getpid(), "m")
	g.CallID, g.PGID, g.Output = "c1", 1<<30, output
	g.OwnerStart++
	return g
}

// TestContinueNeverRerunsAStartedCall: after a crash, the call that had started is answered
// ("may have run partly", with its captured output) and not run; the read-only call runs
// again, the call that never started runs.
func TestContinueNeverRerunsAStartedCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	spool := crashedStep(t, e)
	e.model.Default(scripted.Reply{Text: "checked"})
	ft := &fakeTools{}
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Tools: ft})
	if end.Reason != "done" {
		t.Fatalf("end %+v", end)
	}
	if runs := ft.ran(); len(runs) != 2 || runs[0] != `read {"path":"r"}` || runs[1] != `write {"path":"b"}` {
		t.Fatalf("runs %v", runs)
	}
	res := e.results(t)
	if len(res) != 3 || res[0].CallID != "c1" || !res[0].Unfinished || !res[0].IsError ||
		!strings.Contains(res[0].Text, "may have run partly") || !strings.Contains(res[0].Text, "Output before the stop:\nhalf done\n") {
		t.Fatalf("results %+v", res)
	}
	// Where start times are known (Linux), the orphaned group's copy is removed once answered.
	if _, err := os.Stat(spool); crashedGroup("").Start != 0 && !os.IsNotExist(err) {
		t.Errorf("the output copy is still there: %v", err)
	}
	if got := e.types(); !strings.HasSuffix(got, "process,tool_result,tool_result,tool_start,tool_result,assistant,usage,turn_end") {
		t.Fatalf("events %s", got)
	}
}

// TestNewMessageAfterCrash: without Continue, the model reads that the started call may have
// run, and that the one never started did not.
func TestNewMessageAfterCrash(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	crashedStep(t, e)
	e.say(t, "what happened?")
	evs, _ := e.st.Events(e.sess)
	msgs := Messages(evs)
	got := map[string]string{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			got[m.ToolCallID] = m.Content
		}
	}
	if got["c1"] != mayHaveRun || got["c2"] != notRun || got["c3"] != notRun {
		t.Fatalf("tool messages %v", got)
	}
}
