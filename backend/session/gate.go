package session

import (
	"context"
	"errors"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// Gate is the approval service seen from one turn: the agent's Policy (the settings' rules,
// the user's grants, the approval mode) and its Approver (a pending request the window's card
// or the terminal answers through the service, with Runner.Approve).
type Gate struct {
	svc                *permission.Service
	session, workspace string
	mode               permission.Mode
	// prompt, when set, is called once the asked event is durable (the terminal's question);
	// the window needs nothing: the event shows the card.
	prompt func(req store.Approval)
}

// NewGate binds the service to a turn of session in workspace under an approval mode (ask,
// safe, all, never: see permission.Mode). prompt may be nil.
func NewGate(svc *permission.Service, session, workspace, approve string, prompt func(store.Approval)) (*Gate, error) {
	mode, err := permission.ParseMode(approve)
	if err != nil {
		return nil, err
	}
	return &Gate{svc: svc, session: session, workspace: workspace, mode: mode, prompt: prompt}, nil
}

// Check is the agent's Policy.
func (g *Gate) Check(call tools.Call, access []tools.Access) agent.Verdict {
	d := g.svc.Check(g.session, g.workspace, g.mode, call.Name, access)
	return agent.Verdict{Action: agent.Action(d.Action), Subject: d.Subject, Reason: d.Reason, Once: !d.Rememberable(), Detail: d, Crossing: d.Crossing}
}

// Secret reports whether reading path (through its links) would touch a place holding
// secrets: what the session reads unasked, such as instruction files, skips such a file.
func (g *Gate) Secret(path string) bool {
	return g.svc.Check(g.session, g.workspace, g.mode, "read_files",
		[]tools.Access{{Kind: tools.AccessRead, Path: path}}).Secret
}

// Approve is the agent's Approver: the request is pending in the service from before the asked
// event is written until it is answered or the turn stops.
func (g *Gate) Approve(ctx context.Context, session string, v agent.Verdict, req store.Approval, announce func() error) (string, error) {
	d, ok := v.Detail.(permission.Decision)
	if !ok {
		return "", errors.New("the verdict did not come from the approval service")
	}
	a, err := g.svc.Ask(ctx, session, g.workspace, req.CallID, d, func() error {
		if err := announce(); err != nil {
			return err
		}
		if g.prompt != nil {
			g.prompt(req)
		}
		return nil
	})
	return string(a), err
}

// Approver is the gate as an agent.Approver, or nil when the mode never asks (a headless run
// under safe, all or never has nobody to ask).
func (g *Gate) Approver() agent.Approver {
	if g.mode != permission.ModeAsk {
		return nil
	}
	return g
}
