package tools

import "github.com/tofu-research/tofu/backend/store"

// Family adds tools to the registry of a turn on spec; release (may be nil) is called when the
// turn ends. The turn runner (backend/session) equips each turn with the families switched on;
// the families live with their tools (MCP servers' in backend/mcp).
type Family func(reg *Registry, spec Spec) (release func(), err error)

// Spec is what a tool family may need to know of the turn it equips.
type Spec struct {
	Session   string
	Workspace string
	Events    []store.Event // the session's log when the turn starts
	Model     string        // the turn's model
	// Approve and Prompt are the turn's approval mode and terminal prompt (Request's), for
	// a family that starts turns of its own (sub-agents ask as their parent does).
	Approve string
	Prompt  func(store.Approval)
	// Asker puts questions to the turn's user (nil: nobody can answer, as in `tofu run`).
	Asker Asker
}
