package cli

import (
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// policy adapts the permission package to the agent: the workspace policy, then the headless
// mode (--approve) on top.
type policy struct {
	p    *permission.Policy
	mode permission.Mode
}

func (p policy) Check(call tools.Call, access []tools.Access) agent.Verdict {
	d := p.mode.Apply(p.p.Decide(call.Name, access))
	return agent.Verdict{Action: agent.Action(d.Action), Subject: d.Subject, Reason: d.Reason}
}

// newPolicy is the default policy for a workspace (reads allowed, writes and commands ask,
// outside the workspace asks) under an --approve mode.
func newPolicy(workspace, approve string) (agent.Policy, error) {
	mode, err := permission.ParseMode(approve)
	if err != nil {
		return nil, err
	}
	p, err := permission.New(permission.Config{Workspace: workspace})
	if err != nil {
		return nil, err
	}
	return policy{p: p, mode: mode}, nil
}
