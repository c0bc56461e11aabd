package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/delegate"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// permitExternal puts running the agent to the approval service, as the delegate tool's call
// is: an exec of the agent's program in the workspace (a shell comment says what for), the
// same for every message, so "Allow for this session" (or a rule for the program) covers the
// conversation. When it asks, the question is a call of
// delegate in the log, so the window shows its approval card; the answer is logged with it. It
// returns whether the agent may run and, if not, why.
func (r *Runner) permitExternal(ctx context.Context, req Request, t *externalTurn, events []store.Event) (bool, string, error) {
	r.o.Approvals.Restore(t.session, t.dir, events)
	approve := req.Approve
	if approve == "" {
		approve = string(permission.ModeAsk)
	}
	gate, err := NewGate(r.o.Approvals, t.session, t.dir, approve, req.Prompt)
	if err != nil {
		return false, "", err
	}
	args, _ := json.Marshal(map[string]string{"agent": t.agent.Name, "task": t.task})
	var last uint64
	if len(events) > 0 {
		last = events[len(events)-1].Seq
	}
	call := tools.Call{ID: fmt.Sprintf("agent_%d", last+1), Name: delegate.Name, Arguments: args, Workspace: t.dir}
	access := []tools.Access{{Kind: tools.AccessExec, Command: t.agent.Command + " # runs this conversation as its model (" + t.agent.Label + ")", Dir: t.dir}}
	v := gate.Check(call, access)
	switch {
	case v.Action == agent.Allow:
		return true, "", nil
	case v.Action == agent.Deny || gate.Approver() == nil:
		return false, fmt.Sprintf("Running %s here is not allowed: %s.", t.agent.Label, v.Reason), nil
	}
	st := r.o.Store
	if _, err := st.Append(t.session, store.EventAssistant, store.AssistantMessage{Model: t.model, Provider: t.agent.Name,
		ToolCalls: []llm.ToolCall{{ID: call.ID, Name: call.Name, Arguments: args}}}); err != nil {
		return false, "", err
	}
	ap := store.Approval{CallID: call.ID, Name: call.Name, Subject: v.Subject, Reason: v.Reason, Once: v.Once}
	decision, err := gate.Approve(ctx, t.session, v, ap, func() error {
		_, err := st.Append(t.session, store.EventApproval, ap)
		return err
	})
	if err != nil {
		return false, "", err
	}
	ap.Decision, ap.By = store.Decision(decision), store.ByUser
	if _, err := st.Append(t.session, store.EventApproval, ap); err != nil {
		return false, "", err
	}
	res := store.ToolResult{CallID: call.ID, Name: call.Name, Text: t.agent.Label + " runs this conversation's messages in " + t.dir + "."}
	ok := decision != string(store.DecisionDeny)
	if !ok {
		res.Text, res.IsError = "You did not allow "+t.agent.Label+" to run.", true
	}
	if _, err := st.Append(t.session, store.EventToolResult, res); err != nil {
		return false, "", err
	}
	if !ok {
		return false, res.Text, nil
	}
	return true, "", nil
}
