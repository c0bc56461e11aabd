// Package delegate is the tool that hands a task to another coding agent installed on the
// machine (Claude Code, Codex, OpenCode), run headless in the workspace under Tofu's approval, its events
// read into the result, its session kept for follow-ups.
package delegate

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
	"github.com/tofu-research/tofu/backend/wording"
)

//go:embed delegate.md
var description string

// Name is the tool's name.
const Name = "delegate"

// Options wire the tool.
type Options struct {
	// LookPath finds an agent's program (nil: exec.LookPath).
	LookPath func(string) (string, error)
	// Env is added to the agents' environment (e.g. ANTHROPIC_BASE_URL).
	Env []string
	// Spawner starts the agents so that they die with Tofu (nil: a new one).
	Spawner *procgroup.Spawner
	// Sandbox is the boundary the agents run inside (the settings' template,
	// session.CommandSandbox); nil runs them unconfined.
	Sandbox *sandbox.Boundary
}

type params struct {
	Agent   string `json:"agent" description:"which agent: one of the installed ones named in the description"`
	Task    string `json:"task" description:"the whole task, as you would give it to a colleague"`
	Session string `json:"session,omitempty" description:"continue this session of the agent (from an earlier result)"`
}

// Meta is the result's meta for the UI and the log.
type Meta struct {
	Agent   string   `json:"agent"`
	Session string   `json:"session,omitempty"`
	Steps   []string `json:"steps,omitempty"`
	Turns   int      `json:"turns,omitempty"`
	CostUSD float64  `json:"cost_usd,omitempty"`
	Stderr  string   `json:"stderr,omitempty"`
}

// New returns the delegate tool for the agents installed, or nil when there is none.
func New(o Options) tools.Tool {
	look := o.LookPath
	if look == nil {
		look = exec.LookPath
	}
	if o.Spawner == nil {
		o.Spawner = &procgroup.Spawner{}
	}
	installed := map[string]string{}
	var names []string
	for name, a := range agents {
		if p, err := look(a.Command); err == nil {
			installed[name] = p
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	d := &delegator{o: o, installed: installed}
	return tools.Define(tools.Def[params]{
		Name:        Name,
		Description: strings.TrimSpace(description) + " Installed: " + strings.Join(names, ", ") + ".",
		Purpose:     "hand a task to " + strings.Join(names, ", "),
		Example:     `{"agent":"` + names[0] + `","task":"Add a --verbose flag to the CLI and a test for it"}`,
		Run:         d.run,
		Access: func(call tools.Call, p params) []tools.Access {
			// It runs a program that reads and writes the workspace on its own: an exec.
			return []tools.Access{{Kind: tools.AccessExec, Command: p.Agent + " (delegated task: " + wording.Clip(p.Task, 200) + ")", Dir: call.Workspace}}
		},
	})
}

type delegator struct {
	o         Options
	installed map[string]string
}

func (d *delegator) run(ctx context.Context, call tools.Call, p params) (tools.Result, error) {
	a, ok := agents[p.Agent]
	path := d.installed[p.Agent]
	if !ok || path == "" {
		var names []string
		for n := range d.installed {
			names = append(names, n)
		}
		sort.Strings(names)
		return tools.Errorf(fmt.Sprintf("%q is not an installed agent; installed: %s", p.Agent, strings.Join(names, ", "))), nil
	}
	if strings.TrimSpace(p.Task) == "" {
		return tools.Errorf("task is empty: give the agent the whole task"), nil
	}
	r := &run{}
	out, err := Run(ctx, a, RunOptions{Path: path, Task: p.Task, Session: p.Session, Dir: call.Workspace, Env: d.o.Env,
		Spawner: d.o.Spawner, Launched: call.Launched, Sandbox: d.o.Sandbox}, func(ev Event) {
		n := len(r.steps)
		r.add(ev)
		if call.Progress != nil && len(r.steps) > n {
			// The agent's own tool calls, live on the card: "3 · Write hello.txt".
			call.Progress(tools.Progress{Done: float64(len(r.steps)), Message: r.steps[len(r.steps)-1]})
		}
	})
	if err != nil {
		if errors.Is(err, errRecord) {
			return tools.Result{}, err
		}
		return tools.Errorf(err.Error()), nil
	}
	meta := &Meta{Agent: a.Name, Session: r.session, Steps: r.steps, Turns: r.turns, CostUSD: r.cost, Stderr: out.Stderr}
	if ctx.Err() != nil {
		return tools.Result{Text: "Interrupted; the agent was stopped.", IsError: true, Meta: meta}, ctx.Err()
	}
	var b strings.Builder
	if r.final != "" {
		b.WriteString(r.final)
	} else {
		b.WriteString("(the agent gave no answer)")
	}
	if len(r.steps) > 0 {
		fmt.Fprintf(&b, "\n\n%s's steps:\n", a.Name)
		for _, s := range r.steps[max(len(r.steps)-20, 0):] {
			b.WriteString("- " + s + "\n")
		}
	}
	if r.session != "" {
		fmt.Fprintf(&b, "\n[%s session %s: pass it as session to follow up]", a.Name, r.session)
	}
	var ee *exec.ExitError
	isErr := r.isError
	if out.Exit != nil && errors.As(out.Exit, &ee) {
		isErr = true
		fmt.Fprintf(&b, "\n[%s %s; stderr: %s]", a.Name, ee.ProcessState, wording.Clip(strings.TrimSpace(out.Stderr), 600))
	}
	return tools.Result{Text: b.String(), IsError: isErr, Meta: meta}, nil
}

// run is what an agent's events said, folded for the tool's result.
type run struct {
	session string
	final   string
	isError bool
	steps   []string // the agent's own tool calls, in order
	turns   int
	cost    float64
}

func (r *run) add(ev Event) {
	if ev.Session != "" {
		r.session = ev.Session
	}
	if t := strings.TrimSpace(ev.Text); t != "" {
		r.final = t
	}
	if u := ev.ToolUse; u != nil {
		r.steps = append(r.steps, fmt.Sprintf("%s %s", u.Name, wording.Clip(string(u.Input), 160)))
	}
	r.cost += ev.CostUSD
	if ev.OutputTokens > 0 || ev.InputTokens > 0 {
		r.turns++
	}
	if d := ev.Done; d != nil {
		if d.Result != "" {
			r.final = d.Result
		}
		r.isError = d.IsError
		if d.Turns > 0 {
			r.turns = d.Turns
		}
		if d.CostUSD > 0 {
			r.cost = d.CostUSD
		}
	}
}
