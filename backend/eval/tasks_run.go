package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/store"
)

// AgentRun is how the agent's turn on a task went.
type AgentRun struct {
	Session string
	Reason  string // the turn's end: done, max_steps, max_cost, error, interrupted…
	Steps   int
}

// TasksOptions say how to run a suite.
type TasksOptions struct {
	// Agent runs the agent headless on the task's problem statement in workspace (tofu run's
	// turn). It is called from Parallel goroutines at once.
	Agent func(ctx context.Context, t Task, workspace string) (AgentRun, error)
	// Store holds the sessions, whose usage events the report adds up.
	Store *store.Store
	// WorkDir holds a folder per task's workspace ("": a temporary folder). Keep leaves them.
	WorkDir string
	Keep    bool
	// Parallel tasks at once (0: 1).
	Parallel int
	// TestCmd runs a test of a task that names none ({test}: the test id).
	TestCmd string
	// Done is called as each task finishes (in the order they finish), after Log has it.
	Done func(TaskResult)
	// Log, when set, gets each finished task appended (an interrupted one is not finished).
	Log *ResultsLog
	// Finished are results of an earlier run of the suite (by instance id): those tasks are
	// not run again, and their results go in the report as they are.
	Finished map[string]TaskResult
	// MaxTime bounds each agent's turn (0: no bound): its context ends, which stops the turn
	// and kills the process groups of its commands; the task is graded as it stands, with
	// end_reason max_time.
	MaxTime time.Duration
	// MaxTimeUp, when set, stands for MaxTime's clock: the bound is up when the channel it
	// returns for the task's workspace closes (a test ends a turn at a known point, not after
	// a wall-clock time a loaded machine may not reach the point in).
	MaxTimeUp func(workspace string) <-chan struct{}
	// Run is what the report says it is a run of.
	Run RunInfo
	// Sandbox is the boundary the tests run inside (the settings' template; its Workspace
	// and Temp are the task's): they run the code the agent wrote. nil: unconfined.
	Sandbox *sandbox.Boundary
}

// errMaxTime ends a turn that ran past TasksOptions.MaxTime.
var errMaxTime = errors.New("the task's --max-time is up")

// RunTasks runs each task in a fresh workspace: the agent's turn, then the tests applied and
// run where the agent no longer acts. A task that cannot be set up or graded is reported with
// its error and counts as not resolved; only a cancelled ctx stops the suite.
func RunTasks(ctx context.Context, tasks []Task, o TasksOptions) (TasksReport, error) {
	start := time.Now()
	if o.Parallel < 1 {
		o.Parallel = 1
	}
	root := o.WorkDir
	if root == "" {
		d, err := os.MkdirTemp("", "tofu-eval-tasks-")
		if err != nil {
			return TasksReport{}, err
		}
		root = d
		if !o.Keep {
			defer os.RemoveAll(d)
		}
	}
	results := make([]TaskResult, len(tasks))
	resumed := 0
	var todo []int
	for i, t := range tasks {
		if r, ok := o.Finished[t.InstanceID]; ok {
			results[i] = r
			resumed++
		} else {
			todo = append(todo, i)
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < o.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := runTask(ctx, tasks[i], filepath.Join(root, dirName(tasks[i].InstanceID)), o)
				if ctx.Err() != nil {
					continue // interrupted: not finished, a resumed run does it again
				}
				mu.Lock()
				results[i] = r
				if o.Log != nil {
					if err := o.Log.Append(r); err != nil {
						cancel(err)
					}
				}
				if o.Done != nil {
					o.Done(r)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, i := range todo {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return TasksReport{}, context.Cause(ctx)
	}
	rep := newTasksReport(results, time.Since(start))
	rep.Run, rep.Summary.Resumed = o.Run, resumed
	return rep, nil
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

func dirName(id string) string { return unsafeName().ReplaceAllString(id, "_") }

func runTask(ctx context.Context, t Task, dir string, o TasksOptions) (r TaskResult) {
	start := time.Now()
	r.InstanceID = t.InstanceID
	defer func() {
		r.WallMS = time.Since(start).Milliseconds()
		r.label(ctx, o.Store)
	}()
	if !o.Keep {
		defer os.RemoveAll(dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		r.Error = err.Error()
		return r
	}
	if err := prepareWorkspace(ctx, t, dir); err != nil {
		r.Error = "workspace: " + err.Error()
		return r
	}
	actx := ctx
	if o.MaxTimeUp != nil {
		var cancel context.CancelCauseFunc
		actx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		go func(up <-chan struct{}) {
			select {
			case <-up:
				cancel(errMaxTime)
			case <-actx.Done():
			}
		}(o.MaxTimeUp(dir))
	} else if o.MaxTime > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeoutCause(ctx, o.MaxTime, errMaxTime)
		defer cancel()
	}
	run, err := o.Agent(actx, t, dir)
	r.Session, r.EndReason, r.Steps = run.Session, run.Reason, run.Steps
	if ctx.Err() == nil && errors.Is(context.Cause(actx), errMaxTime) {
		// The turn was stopped by the bound, not by the user: it is graded as it stands.
		r.EndReason, err = "max_time", nil
	}
	if err != nil {
		r.Error = "agent: " + err.Error()
		return r
	}
	if err := r.addUsage(o.Store); err != nil {
		r.Error = "usage: " + err.Error()
		return r
	}
	// The turn has ended: nothing the agent started acts on the workspace any more when the
	// tests go in.
	if err := applyTests(ctx, t, dir); err != nil {
		r.Error = "tests: " + err.Error()
		return r
	}
	cmd := t.TestCmd
	if cmd == "" {
		cmd = o.TestCmd
	}
	if cmd == "" {
		r.Error = "tests: no test_cmd in the task and no --test-cmd"
		return r
	}
	timeout := 600 * time.Second
	if t.TestTimeoutSec > 0 {
		timeout = time.Duration(t.TestTimeoutSec) * time.Second
	}
	var box *sandbox.Boundary
	if o.Sandbox != nil {
		var temp sandbox.Temp // the task's /tmp, shared by its tests
		defer temp.Remove()
		tmp, err := temp.Path()
		if err != nil {
			r.Error = "tests: " + err.Error()
			return r
		}
		b := o.Sandbox.Around(dir, tmp)
		box = &b
	}
	grade := func(ids []string) []TestOutcome {
		var outs []TestOutcome
		for _, id := range ids {
			out, err := runTest(ctx, cmd, id, dir, timeout, box)
			to := TestOutcome{Test: id, Passed: err == nil}
			if err != nil {
				to.Output = tail(out + "\n" + err.Error())
				r.TestsFailed++
			} else {
				r.TestsPassed++
			}
			outs = append(outs, to)
		}
		return outs
	}
	r.FailToPass, r.PassToPass = grade(t.FailToPass), grade(t.PassToPass)
	if ctx.Err() != nil {
		r.Error = "interrupted"
		return r
	}
	r.Resolved = r.TestsFailed == 0 && r.TestsPassed > 0
	return r
}

// label records the task's outcome on its session's eval label (the window shows it), when
// the session has one and the task was not interrupted.
func (r TaskResult) label(ctx context.Context, st *store.Store) {
	if st == nil || r.Session == "" || ctx.Err() != nil {
		return
	}
	// Best effort: the report holds the outcome either way.
	_, _ = st.UpdateSession(r.Session, func(i *store.SessionInfo) {
		if i.Eval != nil {
			i.Eval.Graded = r.Error == ""
			i.Eval.Resolved, i.Eval.TestsPassed, i.Eval.TestsFailed = r.Resolved, r.TestsPassed, r.TestsFailed
		}
	})
}

// addUsage adds up the session's model calls as the provider reported them (and Tofu's own
// count beside it).
func (r *TaskResult) addUsage(st *store.Store) error {
	if st == nil || r.Session == "" {
		return errors.New("no session to read")
	}
	evs, err := st.Events(r.Session)
	if err != nil {
		return fmt.Errorf("session %s: %w", r.Session, err)
	}
	for _, ev := range evs {
		if ev.Type != store.EventUsage {
			continue
		}
		var u llm.Usage
		if err := ev.Decode(&u); err != nil {
			return err
		}
		r.ModelCalls++
		r.InputTokens += u.InputTokens
		r.OutputTokens += u.OutputTokens
		r.CachedTokens += u.CacheReadTokens
		r.LocalInputTokens += u.LocalInputTokens
		r.LocalOutputTokens += u.LocalOutputTokens
		r.CostUSD += u.CostUSD
	}
	return nil
}
