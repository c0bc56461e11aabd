package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// fakeCheckpoints says what each call changed: a write its declared file ("tool"), a call
// whose path starts with "cmd-fmt" a file besides, seen by git status as a command's are.
type fakeCheckpoints struct{}

func (fakeCheckpoints) Before(_ context.Context, c tools.Call, _ []tools.Access) func() []store.FileChange {
	return func() []store.FileChange {
		if strings.Contains(string(c.Arguments), "cmd-fmt") {
			return []store.FileChange{{Path: "src/b.py", By: "git"}, {Path: "src/a.py", By: "git"}}
		}
		return []store.FileChange{{Path: "a.go", By: "tool"}}
	}
}

// TestStepFooterNamesOnlyUnannouncedChanges: after an edit_files + run_command step, the
// command's output ended with "[also modified in this step: src/…py, tests/…py]", which read
// as if pytest had changed them; it repeated the edit's own result. The footer names only
// what a command changed and no result announced.
func TestStepFooterNamesOnlyUnannouncedChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{call("c1", "write", `{"path":"a.go"}`), call("c2", "write", `{"path":"cmd-test"}`)},
	})
	e.model.On(func(r llm.Request) bool { return toolResults(r) == 2 }).Reply(scripted.Reply{
		ToolCalls: []llm.ToolCall{call("c3", "write", `{"path":"cmd-fmt"}`)},
	})
	e.model.Default(scripted.Reply{Text: "Done."})
	e.say(t, "fix it")
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Workspace: "/ws",
		Tools: &fakeTools{}, Checkpoints: fakeCheckpoints{}})
	if end.Reason != "done" {
		t.Fatalf("end = %+v", end)
	}
	res := e.results(t)
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	if res[0].Text != "wrote" || res[1].Text != "ran" {
		t.Errorf("%q, %q: want no footer (the edit announced its own file)", res[0].Text, res[1].Text)
	}
	if want := "ran\n\n[changed by this step's commands: src/a.py, src/b.py]"; res[2].Text != want {
		t.Errorf("a command's own changes: %q, want %q", res[2].Text, want)
	}
}
