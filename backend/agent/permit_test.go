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

// midRunTools is a write that learns while running of a second path it must touch, and asks
// for it through the call's Permit.
type midRunTools struct{ *fakeTools }

func (m midRunTools) Run(ctx context.Context, c tools.Call) (tools.Result, error) {
	if c.Permit == nil {
		return tools.Result{Text: "no permit"}, nil
	}
	ok, why := c.Permit(ctx, []tools.Access{{Kind: tools.AccessWrite, Path: "/later"}})
	if !ok {
		return tools.Errorf("refused: " + why), nil
	}
	return tools.Result{Text: "went on"}, nil
}

func TestPermitFromInsideACall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer, want, events string
		approver                   bool
	}{
		{"user allows", "allow", "went on", "tool_start,approval,approval,tool_result", true},
		{"user denies", "deny", "refused: The user denied this call (/later)", "tool_start,approval,approval,tool_result", true},
		{"nobody to ask", "", "refused: Not allowed without the user's approval", "tool_start,approval,tool_result", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
				ToolCalls: []llm.ToolCall{call("c1", "write", `{"path":"a"}`)},
			})
			e.model.Default(scripted.Reply{Text: "ok"})
			var asked []store.Approval
			turn := Turn{
				Session: e.sess, Model: scripted.DemoModelName, Tools: midRunTools{&fakeTools{}},
				// The call itself is allowed; what it finds while running asks.
				Policy: policyFunc(func(c tools.Call, a []tools.Access) Verdict {
					if a[0].Path == "a" {
						return Verdict{Action: Allow}
					}
					return Verdict{Action: Ask, Subject: a[0].Path, Reason: "outside"}
				}),
			}
			if tc.approver {
				turn.Approver = approverFunc(func(a store.Approval) (string, error) { asked = append(asked, a); return tc.answer, nil })
			}
			e.say(t, "go")
			e.agent.Run(context.Background(), turn)
			got := strings.TrimSuffix(strings.TrimPrefix(e.types(), "user,assistant,usage,"), ",assistant,usage,turn_end")
			if got != tc.events {
				t.Fatalf("events %s, want %s", got, tc.events)
			}
			if res := e.results(t); !strings.HasPrefix(res[0].Text, tc.want) {
				t.Fatalf("result %q, want %q…", res[0].Text, tc.want)
			}
			if tc.approver && (len(asked) != 1 || asked[0].CallID != "c1" || asked[0].Subject != "/later") {
				t.Fatalf("asked %+v", asked)
			}
		})
	}
}

// crossingTools records the crossing each call it runs carries.
type crossingTools struct {
	*fakeTools
	got chan tools.Crossing
}

func (c crossingTools) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	c.got <- call.Crossing
	return tools.Result{Text: "ran"}, nil
}

// TestAllowedCallCarriesItsCrossing: a call allowed by the policy, the mode or a person runs
// with the crossing of the sandbox its verdict named (the places the tool must bind in).
func TestAllowedCallCarriesItsCrossing(t *testing.T) {
	t.Parallel()
	crossing := tools.Crossing{Writable: []string{"/etc/x"}}
	for _, tc := range []struct {
		name   string
		action Action
	}{{"allowed", Allow}, {"approved by a person", Ask}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.model.On(func(r llm.Request) bool { return toolResults(r) == 0 }).Reply(scripted.Reply{
				ToolCalls: []llm.ToolCall{call("c1", "write", `{"path":"/etc/x"}`)},
			})
			e.model.Default(scripted.Reply{Text: "ok"})
			ct := crossingTools{&fakeTools{}, make(chan tools.Crossing, 1)}
			e.say(t, "go")
			e.agent.Run(context.Background(), Turn{
				Session: e.sess, Model: scripted.DemoModelName, Tools: ct,
				Policy: policyFunc(func(tools.Call, []tools.Access) Verdict {
					return Verdict{Action: tc.action, Subject: "/etc/x", Reason: "writes outside", Once: true, Crossing: crossing}
				}),
				Approver: approverFunc(func(store.Approval) (string, error) { return "allow", nil }),
			})
			select {
			case got := <-ct.got:
				if len(got.Writable) != 1 || got.Writable[0] != "/etc/x" {
					t.Fatalf("the call ran with crossing %+v", got)
				}
			default:
				t.Fatal("the call did not run")
			}
		})
	}
}
