package app

import (
	"sync"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// policy adapts the permission package to the agent: the workspace policy, then an approval
// mode (`tofu run --approve`, "ask" in the window) on top, then the subjects the user chose to
// always allow in this workspace.
type policy struct {
	p      *permission.Policy
	mode   permission.Mode
	always *alwaysSet // nil: none
}

func (p policy) Check(call tools.Call, access []tools.Access) agent.Verdict {
	d := p.mode.Apply(p.p.Decide(call.Name, access))
	v := agent.Verdict{Action: agent.Action(d.Action), Subject: d.Subject, Reason: d.Reason}
	if v.Action == agent.Ask && p.always.has(v.Subject) {
		v.Action = agent.Allow
	}
	return v
}

// NewPolicy is the default policy for a workspace (reads allowed, writes and commands ask,
// outside the workspace asks) under an approval mode: ask, safe, all or never (see
// permission.Mode).
func NewPolicy(workspace, approve string) (agent.Policy, error) {
	return newPolicy(workspace, approve, nil)
}

func newPolicy(workspace, approve string, always *alwaysSet) (agent.Policy, error) {
	mode, err := permission.ParseMode(approve)
	if err != nil {
		return nil, err
	}
	p, err := permission.New(permission.Config{Workspace: workspace})
	if err != nil {
		return nil, err
	}
	return policy{p: p, mode: mode, always: always}, nil
}

// alwaysSet is what the user answered "Always allow" to in one workspace: exact subjects (a
// command line, resolved paths), never patterns.
type alwaysSet struct {
	mu  sync.Mutex
	set map[string]bool
}

func (a *alwaysSet) has(subject string) bool {
	if a == nil || subject == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.set[subject]
}

func (a *alwaysSet) add(subject string) {
	if a == nil || subject == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.set == nil {
		a.set = map[string]bool{}
	}
	a.set[subject] = true
}
