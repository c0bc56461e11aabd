package permission

import (
	"fmt"
	"slices"

	"github.com/tofu-research/tofu/backend/tools"
)

// Boundary is how the commands of run_command run, and so what the policy must decide about
// them. Where the kernel confines a command, the policy only decides what would cross the
// confinement; where nothing confines it, the policy is the boundary.
type Boundary int

const (
	// BoundaryUnconfined: commands run as the user, unconfined, because a person chose so in
	// Settings. The static policy decides every command (the allow-list, every path it can
	// reach; exec.go). The zero value, so a Config that does not say keeps that policy.
	BoundaryUnconfined Boundary = iota
	// BoundarySandbox: commands run inside the kernel's sandbox (the workspace and a private
	// /tmp writable, the rest read-only, secret places hidden, no network but through Tofu's
	// proxy, which asks per host at run time). A command asks only when it would need more:
	// a write outside, or a secret place (sandbox.go).
	BoundarySandbox
	// BoundaryNone: no sandbox could be had on this machine, and nobody chose to run
	// commands unconfined: every command asks (Config.NoSandbox says why).
	BoundaryNone
)

func (b Boundary) String() string {
	switch b {
	case BoundarySandbox:
		return "sandbox"
	case BoundaryNone:
		return "none"
	}
	return "unconfined"
}

// confinedTools are the tools whose commands run inside the sandbox. Other tools that start
// processes (delegate, external agents, scheduled jobs) keep the static policy until they do.
var confinedTools = map[string]bool{"run_command": true}

// DefaultSandboxWritable are the places besides the workspace that a sandboxed command writes
// without crossing anything: its private /tmp (the session's temporary folder), and the
// sandbox's own /dev, /dev/shm and /run, which are fresh and die with it.
var DefaultSandboxWritable = []string{"/tmp", "/dev", "/run"}

// commandLine decides a command line run in dir under the configured boundary.
func (p *Policy) commandLine(tool, command, dir string) verdict {
	if !confinedTools[tool] {
		return p.exec(tool, command, dir)
	}
	switch p.cfg.Commands {
	case BoundarySandbox:
		return p.sandboxed(tool, command, dir)
	case BoundaryNone:
		return p.unsandboxed(tool, command, dir)
	}
	return p.exec(tool, command, dir)
}

// unsandboxed decides a command on a machine with no sandbox: what the static policy
// denies is denied, what a rule the user wrote allows runs (a person's choice), and every
// other command asks, with the static policy's own reasons after the plain one.
func (p *Policy) unsandboxed(tool, command, dir string) verdict {
	v := p.exec(tool, command, dir)
	if v.action == Deny || v.action == Allow && v.rule != "" {
		return v
	}
	why := "no sandbox on this machine"
	if p.cfg.NoSandbox != "" {
		why += " (" + p.cfg.NoSandbox + ")"
	}
	why += ": every command asks"
	if v.action == Ask {
		why += "; " + v.reason
	} else if !v.once {
		// An approval may reach the rest of the session: the exact line, as asked.
		v.remember = map[string][]Rule{tool: {{Pattern: command, Action: Allow}}}
	}
	v.action, v.reason, v.crosses = Ask, why, "runs unconfined"
	return v
}

// joinCrossing is the union of two crossings, each place once.
func joinCrossing(a, b tools.Crossing) tools.Crossing {
	add := func(list []string, more []string) []string {
		for _, m := range more {
			if !slices.Contains(list, m) {
				list = append(list, m)
			}
		}
		return list
	}
	return tools.Crossing{Writable: add(a.Writable, b.Writable), Reveal: add(a.Reveal, b.Reveal)}
}

// crossesReason is a reason that names the boundary first: "crosses the sandbox: writes
// outside the workspace: /etc/hosts".
func crossesReason(crosses, detail string) string {
	return fmt.Sprintf("crosses the sandbox: %s: %s", crosses, detail)
}
