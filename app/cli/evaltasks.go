package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/store"
)

// TasksOptions are the inputs of `tofu eval tasks`.
type TasksOptions struct {
	Model, Mode, Approve, Context, TestCmd, WorkDir string
	MaxSteps, Parallel                              int
	MaxCost                                         float64
	Keep                                            bool
}

func newEvalTasksCmd() *cobra.Command {
	var o TasksOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tasks [--json] [--model M] [--mode chat|autonomous] [--max-steps N] [--parallel N] SUITE.jsonl",
		Short: "Run the agent on a suite of coding tasks and grade each with its tests",
		Long: "SUITE.jsonl holds a task per line (docs/EVAL-TASKS.md: instance_id, repo, base_commit,\n" +
			"problem_statement, setup, test_patch or test_files, FAIL_TO_PASS, PASS_TO_PASS, test_cmd).\n" +
			"Each task gets a fresh repository holding only its base commit (the task's repository is\n" +
			"only read); the agent runs headless as `tofu run` does, then the tests go in and run after\n" +
			"its turn has ended. Per task and in total: resolved, tests, steps, model calls, tokens,\n" +
			"cache, cost, wall time and the session (open it in the window).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tasks, err := eval.LoadTasks(args[0])
			if err != nil {
				return err
			}
			st, inst, err := attach()
			if err != nil {
				return err
			}
			if inst != nil {
				inst.Close()
				return errors.New("Tofu is running (the window or tofu serve holds the database): quit it to run a suite")
			}
			defer st.Close()
			ctx, stop := signalContext()
			defer stop()
			errOut := cmd.ErrOrStderr()
			rep, err := RunTasks(ctx, st, tasks, o, func(r eval.TaskResult) {
				fmt.Fprintf(errOut, "%s: resolved=%s tests %d/%d, %s after %d step(s), session %s\n",
					r.InstanceID, yesNo(r.Resolved), r.TestsPassed, r.TestsPassed+r.TestsFailed, r.EndReason, r.Steps, r.Session)
			})
			if err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the report as JSON (keys in docs/EVAL-TASKS.md)")
	f.StringVarP(&o.Model, "model", "m", "", "model (default: the main model in settings)")
	f.StringVar(&o.Mode, "mode", "chat", "chat (the tool loop) or autonomous (planner → worker → critic)")
	// safe would deny the edits themselves (writes ask by default): the workspace is a throwaway
	// copy, so the suite allows what asks, and the deny rules and dangerous commands still deny.
	f.StringVar(&o.Approve, "approve", "all", "calls the policy would ask about: all (allow them in the throwaway workspace; deny rules and dangerous commands still deny), safe (deny them) or never")
	f.StringVar(&o.Context, "context", "", "context compaction policy: tofu, off, l0, l1 or l2 (default: the settings')")
	f.IntVar(&o.MaxSteps, "max-steps", agent.DefaultMaxSteps, "most model calls per task")
	f.Float64Var(&o.MaxCost, "max-cost", 0, "stop a task's turn once its calls cost this many US dollars (0 = no bound)")
	f.IntVar(&o.Parallel, "parallel", 1, "tasks at once")
	f.StringVar(&o.TestCmd, "test-cmd", "", "the command that runs one test of a task without test_cmd ({test}: the test id)")
	f.StringVar(&o.WorkDir, "workdir", "", "folder for the tasks' workspaces (default: a temporary one)")
	f.BoolVar(&o.Keep, "keep", false, "keep the workspaces after grading")
	return cmd
}

// RunTasks runs a suite with one App: every task's turn goes through its runner as `tofu run`'s
// does, in a session of its own. done is called as each task finishes.
func RunTasks(ctx context.Context, st *store.Store, tasks []eval.Task, o TasksOptions, done func(eval.TaskResult)) (eval.TasksReport, error) {
	if o.Approve == "ask" {
		return eval.TasksReport{}, errors.New("--approve ask would wait for a human: a suite runs with safe, all or never")
	}
	a, err := newApp(st, nopEmitter{}, nil)
	if err != nil {
		return eval.TasksReport{}, err
	}
	defer a.Close()
	return eval.RunTasks(ctx, tasks, eval.TasksOptions{
		Agent: func(ctx context.Context, t eval.Task, ws string) (eval.AgentRun, error) {
			return runTask(ctx, st, a, o, t, ws)
		},
		Store: st, WorkDir: o.WorkDir, Keep: o.Keep, Parallel: o.Parallel, TestCmd: o.TestCmd, Done: done,
	})
}

// runTask is one task's headless run: `tofu run` with the problem statement as the task.
func runTask(ctx context.Context, st *store.Store, a *app.App, o TasksOptions, t eval.Task, ws string) (eval.AgentRun, error) {
	ro := RunOptions{
		Task: t.ProblemStatement, Workspace: ws, Model: o.Model, Approve: o.Approve, Mode: o.Mode,
		MaxSteps: o.MaxSteps, MaxCost: o.MaxCost, Context: o.Context, Stdin: strings.NewReader(""),
	}
	ro, err := checkRun(st, ro, "")
	if err != nil {
		return eval.AgentRun{}, err
	}
	sid, end, err := runTurn(ctx, st, a, ro, nil, io.Discard, io.Discard)
	if err == nil && end.Reason == "error" && end.Err != nil {
		err = end.Err
	}
	return eval.AgentRun{Session: sid, Reason: string(end.Reason), Steps: end.Steps}, err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
