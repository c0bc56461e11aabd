package coding

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
)

// RunParams are run_command's arguments.
type RunParams struct {
	Command    string `json:"command" alias:"cmd,script"`
	Dir        string `json:"dir,omitempty" alias:"cwd,working_dir,workdir"`
	Timeout    int    `json:"timeout,omitempty" description:"seconds" alias:"timeout_seconds"`
	Background bool   `json:"background,omitempty" alias:"run_in_background"`
}

// RunMeta is run_command's Result.Meta.
type RunMeta struct {
	Command     string `json:"command"`
	Dir         string `json:"dir"`
	ExitCode    int    `json:"exit_code"` // -1 when stopped by a signal
	DurationMS  int64  `json:"duration_ms"`
	TimedOut    bool   `json:"timed_out,omitempty"`
	Canceled    bool   `json:"canceled,omitempty"`
	Truncated   bool   `json:"truncated,omitempty"`
	OutputBytes int64  `json:"output_bytes"`
	JobID       string `json:"job_id,omitempty"` // set for background: true
}

// NewRunCommand returns the run_command tool; background commands go to jobs.
func NewRunCommand(opts Options, jobs *Jobs) tools.Tool {
	opts = opts.withDefaults()
	return tools.Define(tools.Def[RunParams]{
		Name:        "run_command",
		Description: doc("run_command"),
		Example:     `{"command":"go test ./...","timeout":300}`,
		Run: func(ctx context.Context, call tools.Call, p RunParams) (tools.Result, error) {
			return runCommand(ctx, call, p, opts, jobs)
		},
		Access: func(_ tools.Call, p RunParams) []tools.Access {
			return []tools.Access{{Kind: tools.AccessExec, Command: p.Command, Dir: orDot(p.Dir)}}
		},
	})
}

func runCommand(ctx context.Context, call tools.Call, p RunParams, opts Options, jobs *Jobs) (tools.Result, error) {
	if strings.TrimSpace(p.Command) == "" {
		return tools.Errorf("command is empty"), nil
	}
	dir := tools.AbsPath(call.Workspace, orDot(p.Dir))
	if err := statDir(dir); err != nil {
		return tools.Errorf(fmt.Sprintf("dir %s is not a directory", tools.Rel(call.Workspace, dir))), nil
	}
	meta := RunMeta{Command: p.Command, Dir: dir}
	box, err := jobs.boundary(call)
	if err != nil {
		return tools.Result{}, fmt.Errorf("run_command: %w", err)
	}
	if p.Background {
		j, err := jobs.start(p.Command, dir, box, call.Launched)
		if err != nil {
			return tools.Errorf(err.Error()), nil
		}
		meta.JobID = j.id
		return tools.Result{Text: fmt.Sprintf("started job %s; read its output with job_output {\"id\":%q}, stop it with job_kill", j.id, j.id), Meta: meta}, nil
	}
	timeout := opts.DefaultTimeout
	note := ""
	if p.Timeout > 0 {
		timeout = time.Duration(p.Timeout) * time.Second
	}
	if timeout > opts.MaxTimeout {
		timeout = opts.MaxTimeout
		note = fmt.Sprintf("[timeout lowered to the maximum, %s]\n", opts.MaxTimeout)
	}
	proxy, err := jobs.network(ctx, call, box)
	if err != nil {
		return tools.Result{}, fmt.Errorf("run_command: %w", err)
	}
	defer proxy.Close()
	proc, err := startProcess(jobs.spawner, launch{command: p.Command, dir: dir, launched: call.Launched, spoolDir: opts.SpoolDir, env: jobs.git.env(), box: box, fullMax: opts.FullOutputMax})
	if err != nil {
		return tools.Result{}, fmt.Errorf("run_command: start bash: %w", err)
	}
	defer proc.spool.remove() // the result holds the output from here on
	defer proc.full.close()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-proc.done:
	case <-timer.C:
		meta.TimedOut = true
		proc.stop(opts.KillGrace)
	case <-ctx.Done():
		meta.Canceled = true
		proc.stop(opts.KillGrace)
	}
	out, truncated := proc.out.render(opts.OutputCap)
	meta.ExitCode, meta.Truncated, meta.OutputBytes = proc.exit, truncated, proc.out.total
	meta.DurationMS = proc.end.Sub(proc.start).Milliseconds()
	var b strings.Builder
	res := tools.Result{Meta: meta}
	switch {
	case meta.TimedOut:
		res.IsError = true
		fmt.Fprintf(&b, "[timed out after %s; the command and its children were stopped (%s). Raise timeout or use background]", timeout, proc.status())
	case meta.Canceled:
		res.IsError = true
		fmt.Fprintf(&b, "[%s]", proc.status()) // the loop adds that the user interrupted
	default:
		fmt.Fprintf(&b, "[%s]", proc.status())
	}
	b.WriteString(networkNote(box, proxy, proc.exit, out))
	res.Text = withOutput(note, out, b.String())
	if truncated {
		// The whole output, for L0 to store: read_result then finds what the cap left out.
		if whole, dropped, ok := proc.full.text(proc.out); ok {
			status := b.String()
			if dropped > 0 {
				status += fmt.Sprintf("\n[the stored output is cut: %d bytes in its middle were past its %s bound]", dropped, sizeText(opts.FullOutputMax))
			}
			res.Full = withOutput(note, whole, status)
		}
	}
	if meta.Canceled {
		return res, ctx.Err()
	}
	return res, nil
}

// withOutput is a result's text: the note, the output ending with a line break, the status.
func withOutput(note, out, status string) string {
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return note + out + status
}
