package mcp

import (
	"context"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
)

// TurnWait bounds how long a turn's start waits for servers still starting; the ones not
// ready by then are left out of that turn.
const TurnWait = 10 * time.Second

// Family is the tool family of the connected servers' tools for the turn runner: every tool
// (but the ones switched off) as mcp__<server>__<tool>, deferred without being listed, so
// connecting servers does not grow the first request; tool_search finds them. During a call,
// the server's sampling and elicitation requests are put to the turn's user, and sampling runs
// on model (nil: refused).
func (m *Manager) Family(model Complete) tools.Family {
	return func(reg *tools.Registry, spec tools.Spec) (func(), error) {
		ctx, cancel := context.WithTimeout(context.Background(), TurnWait)
		m.Wait(ctx)
		cancel()
		var requests Requests
		if spec.Asker != nil {
			requests = &AskRequests{Asker: spec.Asker, Model: model}
		}
		var names []string
		for _, s := range m.list() {
			cfg, defs := m.tools(s.name)
			for _, d := range defs {
				t := newTool(m, s.name, cfg, d, requests)
				if reg.Add(t) == nil {
					names = append(names, t.spec.Name)
				}
			}
		}
		reg.DeferUnlisted(names...)
		return nil, nil
	}
}
