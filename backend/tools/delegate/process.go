package delegate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// errRecord: the agent's process group could not be recorded in the log (the turn ends).
var errRecord = errors.New("record the agent's process group")

// RunOptions say how to run an agent once.
type RunOptions struct {
	Path    string // the agent's program, as found on the PATH
	Task    string
	Session string // the agent's session to continue ("": a new one)
	Dir     string // where it works
	Env     []string
	Spawner *procgroup.Spawner
	// Launched records the agent's process group before it runs anything (tools.Call's).
	Launched func(procgroup.Group) error
	// Sandbox is the boundary template the agent runs inside (nil: unconfined); see confine.
	Sandbox *sandbox.Boundary
}

// Outcome is how an agent's process ended.
type Outcome struct {
	Stderr string // its last 4 KB
	Exit   error  // nil, or how it failed (an *exec.ExitError for a non-zero exit)
}

// Run runs agent a headless in its own process group (killed when ctx ends) and calls on with
// each event of its stream as it arrives. The error is for a run that could not start or be
// recorded; how the process ended is in the Outcome.
func Run(ctx context.Context, a Agent, o RunOptions, on func(Event)) (Outcome, error) {
	cmd := exec.Command(o.Path, a.Args(o.Task, o.Session, o.Dir, o.Sandbox != nil)...)
	cmd.Dir = o.Dir
	marker := procgroup.NewMarker()
	cmd.Env = append(append(append(os.Environ(), a.Env...), o.Env...), procgroup.MarkerEnv+"="+marker, "PWD="+o.Dir)
	if owner := procgroup.OwnerValue(); owner != "" {
		cmd.Env = append(cmd.Env, procgroup.OwnerEnv+"="+owner)
	}
	if o.Sandbox != nil {
		var temp sandbox.Temp
		defer temp.Remove()
		if err := confine(cmd, a, o, &temp); err != nil {
			return Outcome{}, fmt.Errorf("sandbox %s: %w", a.Command, err)
		}
	}
	procgroup.Prepare(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Outcome{}, err
	}
	var stderr tailBuf
	cmd.Stderr = &stderr
	sp := o.Spawner
	if sp == nil {
		sp = &procgroup.Spawner{}
	}
	if err := sp.Start(cmd); err != nil {
		return Outcome{}, fmt.Errorf("start %s: %w", a.Command, err)
	}
	if o.Launched != nil {
		if err := o.Launched(procgroup.Describe(cmd.Process.Pid, marker)); err != nil {
			_ = killGroup(cmd.Process.Pid)
			_ = cmd.Wait()
			return Outcome{}, fmt.Errorf("%w: %w", errRecord, err)
		}
	}
	stop := context.AfterFunc(ctx, func() { _ = killGroup(cmd.Process.Pid) })
	defer stop()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		for _, ev := range a.Parse(sc.Bytes()) {
			on(ev)
		}
	}
	werr := cmd.Wait()
	return Outcome{Stderr: stderr.String(), Exit: werr}, nil
}

// confine rewrites cmd to run the agent inside the boundary: the workspace writable, and its
// own folders (Agent.State: its login, settings and sessions, made if missing so that a
// folder is bound and never the home around it); a /tmp of its own for the run; the rest
// read-only and the secret places hidden; its credential variables (Agent.Keys) and those
// Tofu sets on purpose (Agent.Env, RunOptions.Env) passed. It shares Tofu's network: an
// agent's work is reaching its model, whose address is its own setting (docs/SECURITY.md).
func confine(cmd *exec.Cmd, a Agent, o RunOptions, temp *sandbox.Temp) error {
	tmp, err := temp.Path()
	if err != nil {
		return err
	}
	b := o.Sandbox.Around(o.Dir, tmp)
	b.HostNetwork = true
	b.Expose = append(b.Expose, o.Path)
	if a.State != nil {
		dirs, files := a.State(cmd.Env)
		for _, d := range dirs {
			if filepath.IsAbs(d) {
				if err := os.MkdirAll(d, 0o700); err != nil {
					return err
				}
				b.Writable = append(b.Writable, d)
			}
		}
		for _, f := range files {
			if filepath.IsAbs(f) {
				if err := touch(f); err != nil {
					return err
				}
				b.Writable = append(b.Writable, f)
			}
		}
	}
	keep := slices.Clone(a.Keys)
	for _, kv := range append(slices.Clone(a.Env), o.Env...) {
		name, _, _ := strings.Cut(kv, "=")
		keep = append(keep, name)
	}
	return b.Wrap(cmd, keep...)
}

// touch makes the file p if it does not exist (in a folder that must).
func touch(p string) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// tailBuf keeps the last 4 KB written.
type tailBuf struct{ b []byte }

func (t *tailBuf) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuf) String() string { return string(t.b) }
