// Package swarm runs a dependency-aware team of sub-agents for one spawn_agents call: each
// agent is a child session run by the turn runner, started the moment its inputs are ready.
package swarm

import (
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/store"
)

// AgentSpec is one agent as the model asks for it.
type AgentSpec struct {
	Objective string `json:"objective" description:"what this agent must find out or do, self-contained"`
	Context   string `json:"context,omitempty" description:"facts it needs that its dependencies will not give it"`
	Role      string `json:"role,omitempty" description:"planner, researcher, coder, analyst, reviewer (read-only), writer or general (default)"`
	DependsOn []int  `json:"depends_on,omitempty" description:"indices (0-based, in this list) of agents whose results it needs"`
}

// maxAgents bounds one swarm: every agent is a model conversation of its own.
const maxAgents = 32

// validate checks the agents added to a swarm that already has have agents (all of them
// finished or scheduled, so none can depend on a new one): every index names an agent, none
// depends on itself, and the new agents form no cycle. The error is what the model reads.
func validate(have int, add []AgentSpec) error {
	if len(add) == 0 {
		return fmt.Errorf("agents is empty: give at least one agent with an objective")
	}
	if have+len(add) > maxAgents {
		return fmt.Errorf("a swarm has at most %d agents; this one would have %d: merge small objectives", maxAgents, have+len(add))
	}
	total := have + len(add)
	for i, a := range add {
		idx := have + i
		if strings.TrimSpace(a.Objective) == "" {
			return fmt.Errorf("agents[%d] has no objective", i)
		}
		if _, ok := parseRole(a.Role); !ok {
			return fmt.Errorf("agents[%d].role %q is not a role: use one of %s", i, a.Role, strings.Join(roleNames(), ", "))
		}
		for _, d := range a.DependsOn {
			switch {
			case d < 0 || d >= total:
				return fmt.Errorf("agents[%d].depends_on has %d, which names no agent (indices run from 0 to %d)", i, d, total-1)
			case d == idx:
				return fmt.Errorf("agents[%d] depends on itself", i)
			}
		}
	}
	if cyc := cycle(have, add); cyc != nil {
		parts := make([]string, len(cyc))
		for i, c := range cyc {
			parts[i] = fmt.Sprint(c)
		}
		return fmt.Errorf("depends_on makes a cycle (%s): an agent cannot wait for its own result", strings.Join(parts, " → "))
	}
	return nil
}

// cycle returns one dependency cycle among the new agents (global indices, the first repeated
// at the end), or nil.
func cycle(have int, add []AgentSpec) []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(add))
	var stack []int
	var found []int
	var visit func(i int) bool
	visit = func(i int) bool {
		color[i] = grey
		stack = append(stack, have+i)
		for _, d := range add[i].DependsOn {
			j := d - have
			if j < 0 {
				continue // an agent of an earlier round: finished, it waits for nobody
			}
			if color[j] == grey {
				for k, s := range stack {
					if s == d {
						found = append(append([]int(nil), stack[k:]...), d)
					}
				}
				return true
			}
			if color[j] == white && visit(j) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
		return false
	}
	for i := range add {
		if color[i] == white && visit(i) {
			return found
		}
	}
	return nil
}

// criticalPath is the longest chain of durations through the graph: no scheduler can finish
// the agents sooner, whatever its parallelism.
func criticalPath(agents []store.SwarmAgent, took func(i int) time.Duration) time.Duration {
	finish := make([]time.Duration, len(agents))
	done := make([]bool, len(agents))
	var at func(i int) time.Duration
	at = func(i int) time.Duration {
		if done[i] {
			return finish[i]
		}
		var start time.Duration
		for _, d := range agents[i].DependsOn {
			if d >= 0 && d < len(agents) && d != i {
				start = max(start, at(d))
			}
		}
		finish[i], done[i] = start+took(i), true
		return finish[i]
	}
	var longest time.Duration
	for i := range agents {
		longest = max(longest, at(i))
	}
	return longest
}

// CriticalPath is the longest chain of the agents' durations through their dependencies (for
// `tofu eval swarm`).
func CriticalPath(agents []store.SwarmAgent, took func(i int) time.Duration) time.Duration {
	return criticalPath(agents, took)
}
