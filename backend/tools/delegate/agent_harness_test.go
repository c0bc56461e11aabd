package delegate

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/tools"
)

// What the agent tests have in common: a real agent on the scripted model, asked to write a
// file, then to resume its session and say what it wrote.

// scriptedCall is a tool call the scripted model makes when the task says words.
type scriptedCall struct {
	words string
	call  llm.ToolCall
}

// scriptAgent makes srv answer the agent: the call whose words the task holds, while no tool
// result has come back; done once one has; from the resumed session, a question about what it
// wrote.
func scriptAgent(srv *scripted.Server, done string, calls ...scriptedCall) {
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		results := 0
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				results++
			}
		}
		last := scripted.LastUser(r)
		if strings.Contains(last, "what did you write") {
			return scripted.Reply{Text: "I wrote hello.txt earlier in this session."}
		}
		for _, c := range calls {
			if strings.Contains(last, c.words) && results == 0 {
				return scripted.Reply{ToolCalls: []llm.ToolCall{c.call}}
			}
		}
		if results > 0 {
			return scripted.Reply{Text: done}
		}
		return scripted.Reply{Text: "ok"}
	})
}

// jsonArgs marshals a tool call's arguments.
func jsonArgs(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// agentRun runs the delegate tool in one workspace with only the agent bin installed (as
// name), and keeps the progress it reports.
type agentRun struct {
	t       *testing.T
	reg     *tools.Registry
	ws      string
	reports []tools.Progress
}

func newAgentRun(t *testing.T, ws, name, bin string, env []string) *agentRun {
	t.Helper()
	return &agentRun{t: t, ws: ws, reg: newAgentRunWith(t, Options{LookPath: func(n string) (string, error) {
		if n != name {
			return "", os.ErrNotExist
		}
		return bin, nil
	}, Env: env})}
}

// newAgentRunWith is a registry holding the tool made with o.
func newAgentRunWith(t *testing.T, o Options) *tools.Registry {
	t.Helper()
	d := New(o)
	if d == nil {
		t.Fatal("no agent found")
	}
	return tools.NewRegistry(d)
}

// run calls the tool as the model would, after checking it asks to run a program (the
// approval service sees an exec).
func (a *agentRun) run(args string) tools.Result {
	a.t.Helper()
	call := tools.Call{ID: "c1", Name: Name, Arguments: json.RawMessage(args), Workspace: a.ws,
		Progress: func(p tools.Progress) { a.reports = append(a.reports, p) }}
	acc, aerr := a.reg.Access(call)
	if aerr != nil || len(acc) != 1 || acc[0].Kind != tools.AccessExec {
		a.t.Fatalf("access: %+v %v", acc, aerr)
	}
	res, err := a.reg.Run(context.Background(), call)
	if err != nil {
		a.t.Fatal(err)
	}
	return res
}

// checkStep checks the first run's one step, reported live (for the running card) with the
// tool's name.
func (a *agentRun) checkStep(meta *Meta, tool string) {
	a.t.Helper()
	if len(meta.Steps) != 1 || !strings.HasPrefix(meta.Steps[0], tool+" ") {
		a.t.Fatalf("steps: %q", meta.Steps)
	}
	if len(a.reports) != 1 || a.reports[0].Done != 1 || !strings.HasPrefix(a.reports[0].Message, tool+" ") {
		a.t.Fatalf("progress: %+v", a.reports)
	}
}

// checkFollowUp resumes session with a question about the first run: the answer is the
// resumed session's, and the request carried the first run's conversation (its answer done).
func (a *agentRun) checkFollowUp(srv *scripted.Server, agent, session, done string) {
	a.t.Helper()
	res := a.run(`{"agent":"` + agent + `","task":"what did you write?","session":"` + session + `"}`)
	if res.IsError || !strings.Contains(res.Text, "earlier in this session") || res.Meta.(*Meta).Session != session {
		a.t.Fatalf("follow-up: %+v\n%s", res.Meta, res.Text)
	}
	last := srv.Chats()[len(srv.Chats())-1].Request
	var saw bool
	for _, m := range last.Messages {
		saw = saw || strings.Contains(m.Content, done)
	}
	if !saw {
		a.t.Fatalf("the resumed session lost its history: %+v", last.Messages)
	}
}

// toolResultSaid reports whether a request carried a result of call id whose content is ok.
func toolResultSaid(srv *scripted.Server, id string, ok func(content string) bool) bool {
	for _, c := range srv.Chats() {
		for _, m := range c.Request.Messages {
			if m.Role == llm.RoleTool && m.ToolCallID == id && ok(m.Content) {
				return true
			}
		}
	}
	return false
}
