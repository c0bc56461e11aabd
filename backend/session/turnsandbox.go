package session

import (
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/sandbox"
)

// turnSandbox is the boundary of a turn's commands (CommandSandbox), with the global skills
// folder shown read-only: it lives in Tofu's config folder, which the sandbox hides, and a
// skill's scripts run through run_command like any command. nil when commands run
// unconfined.
func turnSandbox(cfg config.Config, skillsDir string) *sandbox.Boundary {
	b := CommandSandbox(cfg)
	if b != nil && skillsDir != "" {
		b.Expose = append(b.Expose, skillsDir)
	}
	return b
}
