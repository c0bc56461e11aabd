// Package coding holds Tofu's workspace tools: reading, searching, finding, editing and writing
// files, and running commands (in the foreground or as background jobs).
package coding

import (
	"embed"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools"
)

//go:embed *.md
var docs embed.FS

// doc returns the embedded description of a tool.
func doc(name string) string {
	b, err := docs.ReadFile(name + ".md")
	if err != nil {
		panic("coding: missing description " + name + ".md")
	}
	return strings.TrimSpace(string(b))
}

// Options configure the coding tools; the zero value is the default.
type Options struct {
	// Ripgrep is the rg binary grep uses: "" looks it up on PATH, "-" never uses rg (the Go
	// search runs instead).
	Ripgrep string
	// DefaultTimeout and MaxTimeout bound a foreground command (defaults 120 s and 10 min).
	DefaultTimeout, MaxTimeout time.Duration
	// KillGrace is how long a cancelled command has between SIGINT and SIGKILL (default 3 s).
	KillGrace time.Duration
	// OutputCap is the most characters of command output the model sees (default 30,000).
	OutputCap int
	// FullOutputMax bounds the whole output of a foreground command kept for read_result
	// beyond OutputCap (default FullOutputMax, 64 MB).
	FullOutputMax int64
	// SpoolDir receives a copy of each recorded foreground command's output while it runs,
	// for a Tofu restarted after a crash (default: the system's temporary directory).
	SpoolDir string
	// Sandbox is the boundary commands run inside (its Workspace and Temp are filled in per
	// call and per session); nil runs them unconfined, which only a person's choice in the
	// settings, or a machine with no sandbox where every command asks, may lead to.
	Sandbox *sandbox.Boundary
	// Network lets sandboxed foreground commands reach hosts through Tofu's proxy, each host
	// decided by the approval service as the call runs (web access on in the settings). Off,
	// commands have no network at all.
	Network bool
}

func (o Options) withDefaults() Options {
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = DefaultCommandTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = MaxCommandTimeout
	}
	if o.KillGrace <= 0 {
		o.KillGrace = 3 * time.Second
	}
	if o.FullOutputMax <= 0 {
		o.FullOutputMax = FullOutputMax
	}
	if o.OutputCap <= 0 {
		o.OutputCap = CommandOutputCap
	}
	return o
}

// Toolbox is the set of coding tools sharing one background-job table.
type Toolbox struct {
	opts Options
	jobs *Jobs
}

// NewToolbox returns the coding tools configured by opts. Close it to stop background jobs.
func NewToolbox(opts Options) *Toolbox {
	opts = opts.withDefaults()
	return &Toolbox{opts: opts, jobs: NewJobs(opts)}
}

// Tools returns the tools in the order they are offered.
func (tb *Toolbox) Tools() []tools.Tool {
	return []tools.Tool{
		NewReadFiles(),
		NewGrep(tb.opts),
		NewFindFiles(),
		NewEditFiles(),
		NewWriteFile(),
		NewRunCommand(tb.opts, tb.jobs),
		NewJobOutput(tb.jobs),
		NewJobKill(tb.jobs),
	}
}

// Jobs returns the background-job table.
func (tb *Toolbox) Jobs() *Jobs { return tb.jobs }

// Close stops every background job.
func (tb *Toolbox) Close() { tb.jobs.Close() }
