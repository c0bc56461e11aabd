// Package toolset assembles Tofu's default tools into a registry for a session: the coding
// tools, todo_write (offered once found), ask_human when a user can answer, read_result when
// outputs are stored.
package toolset

import (
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/assist"
	"github.com/tofu-research/tofu/backend/tools/coding"
)

// Options wire the default toolset.
type Options struct {
	Coding coding.Options
	// Asker answers ask_human; nil (headless) leaves the tool out.
	Asker tools.Asker
	// Results backs read_result; nil leaves the tool out.
	Results tools.ResultStore
	// Active lists rarely used tools to offer from the start (a resumed session already used
	// or found them); the others of Rare wait for tool_search.
	Active []string
}

// Rare are the default tools not offered until needed: read_result is only useful after an
// output was stored by reference, and the model can still call it directly or find it with
// tool_search. The job tools are not rare: a background command tells the model to call them,
// and offering a tool mid-session changes the tool list, the head of the cached prefix
// (job_output and job_kill cost 112 o200k tokens per request, less than re-reading the
// prefix once). todo_write is rare too: its spec costs 132 tokens on every request, past the
// first request's budget (session.FirstRequestBudget), while tool_search's line names it and
// a model that plans calls it directly or finds it ("plan").
var Rare = []string{"read_result", "todo_write"}

// Toolset is a session's registry plus the background jobs its commands started.
type Toolset struct {
	*tools.Registry
	box *coding.Toolbox
}

// New returns the default toolset. Close it when the session ends.
func New(opts Options) *Toolset {
	box := coding.NewToolbox(opts.Coding)
	reg := tools.NewRegistry(box.Tools()...)
	_ = reg.Add(assist.NewTodoWrite()) // the plan the window shows beside the turn
	if opts.Asker != nil {
		_ = reg.Add(assist.NewAskHuman(opts.Asker))
	}
	if opts.Results != nil {
		_ = reg.Add(assist.NewReadResult(opts.Results))
	}
	reg.Defer(Rare...)
	reg.Activate(opts.Active...)
	return &Toolset{Registry: reg, box: box}
}

// Jobs returns the background-job table (for the UI, and to stop jobs on interrupt).
func (t *Toolset) Jobs() *coding.Jobs { return t.box.Jobs() }

// Close stops the background jobs.
func (t *Toolset) Close() { t.box.Close() }
