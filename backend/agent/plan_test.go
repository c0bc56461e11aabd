package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/assist"
)

// planTools are the fake tools with the real todo_write.
type planTools struct {
	*fakeTools
	todo tools.Tool
}

func (p planTools) Specs() []llm.ToolSpec { return append(p.fakeTools.Specs(), p.todo.Spec()) }
func (p planTools) ReadOnly(name string) bool {
	return name == "todo_write" || p.fakeTools.ReadOnly(name)
}
func (p planTools) Access(c tools.Call) ([]tools.Access, *tools.ArgError) {
	if c.Name == "todo_write" {
		return nil, nil
	}
	return p.fakeTools.Access(c)
}
func (p planTools) Run(ctx context.Context, c tools.Call) (tools.Result, error) {
	if c.Name == "todo_write" {
		return p.todo.Run(ctx, c)
	}
	return p.fakeTools.Run(ctx, c)
}

// A plan left unfinished for PlanStaleSteps steps is reminded at the end of the next request,
// on the step's last result, and stays there: each request extends the one before byte for byte.
func TestStalePlanIsRemindedAtTheEndOfTheRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plan := `{"todos":[{"content":"Read the code","status":"done"},{"content":"Fix the parser","status":"in_progress"},{"content":"Run the tests","status":"pending"}]}`
	const steps = 2*PlanStaleSteps + 1
	e.model.DefaultFunc(func(r llm.Request) scripted.Reply {
		n := toolResults(r)
		switch {
		case n == 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{call("p", "todo_write", plan)}}
		case n < steps:
			return scripted.Reply{ToolCalls: []llm.ToolCall{call(fmt.Sprintf("r%d", n), "read", fmt.Sprintf(`{"path":"f%d"}`, n))}}
		}
		return scripted.Reply{Text: "Done."}
	})
	e.say(t, "fix the parser")
	end := e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Workspace: "/ws",
		Tools: planTools{&fakeTools{}, assist.NewTodoWrite()}, Checkpoints: fakeCheckpoints{}, MaxSteps: 30})
	if end.Reason != "done" {
		t.Fatalf("end = %+v", end)
	}
	res := e.results(t)
	if len(res) != steps {
		t.Fatalf("%d results, want %d", len(res), steps)
	}
	want := "\n\n<system-reminder>Your plan was last updated 6 steps ago (1 of 3 done; in progress: Fix the parser). Update it with todo_write as the work moves on, or clear it if the task changed.</system-reminder>"
	for i, r := range res {
		reminded := strings.Contains(r.Text, "<system-reminder>")
		switch i {
		case PlanStaleSteps:
			if !strings.HasSuffix(r.Text, want) {
				t.Errorf("result %d: %q, want the reminder", i, r.Text)
			}
		case 2 * PlanStaleSteps:
			if !strings.Contains(r.Text, "last updated 12 steps ago") {
				t.Errorf("result %d: %q, want the second reminder", i, r.Text)
			}
		default:
			if reminded {
				t.Errorf("result %d reminded: %q", i, r.Text)
			}
		}
	}
	chats := e.model.Chats()
	// The reminder is the end of the request that follows its step…
	after := chats[PlanStaleSteps+1].Request.Messages
	if last := after[len(after)-1]; last.Role != llm.RoleTool || !strings.HasSuffix(last.Content, want) {
		t.Fatalf("the request after the stale step ends with %q", last.Content)
	}
	// …and every request extends the one before it byte for byte (the prefix stays cached).
	for k := 1; k < len(chats); k++ {
		prev, cur := chats[k-1].Request.Messages, chats[k].Request.Messages
		for i := range prev {
			if fmt.Sprint(prev[i]) != fmt.Sprint(cur[i]) {
				t.Fatalf("request %d changed message %d of the one before", k, i)
			}
		}
	}
}

// A plan with every item done is not reminded, nor a log without a plan.
func TestFinishedPlanIsNotReminded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := `{"todos":[{"content":"Read the code","status":"done"}]}`
	e.model.DefaultFunc(func(r llm.Request) scripted.Reply {
		n := toolResults(r)
		switch {
		case n == 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{call("p", "todo_write", done)}}
		case n <= PlanStaleSteps:
			return scripted.Reply{ToolCalls: []llm.ToolCall{call(fmt.Sprintf("r%d", n), "read", `{}`)}}
		}
		return scripted.Reply{Text: "Done."}
	})
	e.say(t, "go")
	e.agent.Run(context.Background(), Turn{Session: e.sess, Model: scripted.DemoModelName, Workspace: "/ws",
		Tools: planTools{&fakeTools{}, assist.NewTodoWrite()}, Checkpoints: fakeCheckpoints{}, MaxSteps: 30})
	for i, r := range e.results(t) {
		if strings.Contains(r.Text, "<system-reminder>") {
			t.Errorf("result %d reminded: %q", i, r.Text)
		}
	}
}
