package app

import (
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/delegate"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// delegateFamily offers the delegate tool (another coding agent as a tool) to agent turns
// when such an agent is installed, found afresh each turn; deferred behind tool_search. The
// agents it starts die with Tofu (spawner, closed with the app), and run inside the sandbox
// the settings give the agent's processes.
func delegateFamily(spawner *procgroup.Spawner, settings *SettingsService) session.ToolFamily {
	return func(reg *tools.Registry, _ session.Spec) (func(), error) {
		if t := delegate.New(delegate.Options{Spawner: spawner, Sandbox: commandSandbox(settings)}); t != nil && reg.Add(t) == nil {
			reg.Defer(delegate.Name)
		}
		return nil, nil
	}
}
