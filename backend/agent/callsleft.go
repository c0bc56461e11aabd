package agent

import (
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// callsLeft is the bound L1's cost model gets on the calls still to come: the turn's steps
// left, the only thing the agent knows of its future. A move declined because it would not
// pay back within them lets the requests grow, so the bound is dropped (0) when, growing as
// they have so far, the requests would reach L2's threshold within those steps: a summary (a
// model call and a rewrite of everything after it) would then come instead of the move, and
// cost more.
func callsLeft(t *Turn, events []store.Event, steps int) int {
	if steps <= 0 || t.Context == nil {
		return 0
	}
	if !t.summarizes() || !t.Context.Config.L2.Enabled {
		return steps
	}
	window := t.Window
	if window <= 0 {
		window = lastWindow(events)
	}
	th := compact.Threshold(window, t.Context.Config.L2)
	if th <= 0 {
		return steps
	}
	last, calls := 0, 0
	for _, ev := range events {
		var u llm.Usage
		if ev.Type == store.EventUsage && ev.Decode(&u) == nil && u.InputTokens > 0 && u.Purpose == "" {
			last, calls = u.InputTokens, calls+1
		}
	}
	if calls == 0 {
		return steps
	}
	if last+last/calls*steps >= th {
		return 0
	}
	return steps
}
