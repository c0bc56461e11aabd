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

// shownSkills is the global skills folder, which turnSandbox shows commands: the policy does
// not take reading it for a secret (it lies in Tofu's hidden config folder).
func shownSkills(skillsDir string) []string {
	if skillsDir == "" {
		return nil
	}
	return []string{skillsDir}
}
