package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TasksOptions are the inputs of `tofu eval tasks` for each task; SuiteOptions the suite's
// (backend/eval).
type (
	TasksOptions = eval.TaskRunOptions
	SuiteOptions = eval.SuiteOptions
)

func newEvalTasksCmd() *cobra.Command {
	var o SuiteOptions
	var asJSON, merge, compare bool
	cmd := &cobra.Command{
		Use: "tasks [--json] [--model M] [--mode chat|autonomous] [--max-steps N] [--max-time D] [--parallel N]\n" +
			"        [--shard I/N] [--out REPORT.json] [--repos DIR] SUITE.jsonl\n" +
			"  tofu eval tasks --merge [--out MERGED.json] A.json B.json…\n" +
			"  tofu eval tasks --compare A.json B.json",
		Short: "Run the agent on a suite of coding tasks and grade each with its tests",
		Long: "SUITE.jsonl holds a task per line (docs/EVAL-TASKS.md: instance_id, repo, base_commit,\n" +
			"problem_statement, setup, test_patch or test_files, FAIL_TO_PASS, PASS_TO_PASS, test_cmd).\n" +
			"Each task gets a fresh repository holding only its base commit (the task's repository is\n" +
			"only read); the agent runs headless as `tofu run` does, then the tests go in and run after\n" +
			"its turn has ended. Per task and in total: resolved, tests, steps, model calls, tokens,\n" +
			"cache, cost, wall time and the session (open it in the window).\n" +
			"With --out, each finished task is appended to REPORT.results.jsonl: the same command again\n" +
			"skips the finished tasks. --shard I/N runs every N-th task by instance id; --merge combines\n" +
			"the shards' reports; --compare prints an ablation of two reports with paired differences.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			switch {
			case merge && compare:
				return errors.New("--merge or --compare, not both")
			case compare:
				if len(args) != 2 {
					return errors.New("--compare takes two reports: A.json B.json")
				}
				c, err := eval.CompareReportFiles(args[0], args[1])
				if err != nil {
					return err
				}
				return c.WriteText(out)
			case merge:
				rep, err := eval.MergeReportFiles(args)
				if err != nil {
					return err
				}
				if miss := rep.Missing(); miss != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), "note: "+miss)
				}
				return eval.WriteReport(rep, o.Out, asJSON, out)
			}
			if len(args) != 1 {
				return errors.New("one suite file (or --merge / --compare with reports)")
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
			rep, err := RunSuite(ctx, st, args[0], o, func(r eval.TaskResult) {
				fmt.Fprintf(errOut, "%s: resolved=%s tests %d/%d, %s after %d step(s), session %s\n",
					r.InstanceID, yesNo(r.Resolved), r.TestsPassed, r.TestsPassed+r.TestsFailed, r.EndReason, r.Steps, r.Session)
			})
			if err != nil {
				return err
			}
			return eval.WriteReport(rep, o.Out, asJSON, out)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the report as JSON (keys in docs/EVAL-TASKS.md)")
	f.StringVarP(&o.Model, "model", "m", "", "model (default: the main model in settings)")
	f.StringVar(&o.Mode, "mode", "chat", "chat (the tool loop) or autonomous (planner → worker → critic)")
	f.StringVar(&o.Approve, "approve", "safe", "calls the policy would ask about: safe (the suite profile: edits inside the workspace and the listed test and build commands run, everything else that would ask is denied; docs/EVAL-TASKS.md), all (allow them; deny rules and dangerous commands still deny) or never (read only)")
	f.StringVar(&o.Context, "context", "", "context compaction policy: tofu, off, l0, l1 or l2 (default: the settings')")
	f.IntVar(&o.MaxSteps, "max-steps", agent.DefaultMaxSteps, "most model calls per task")
	f.Float64Var(&o.MaxCost, "max-cost", 0, "stop a task's turn once its calls cost this many US dollars (0 = no bound)")
	f.DurationVar(&o.MaxTime, "max-time", 0, "stop a task's turn after this long (e.g. 15m; its commands' process groups are killed; 0 = no bound)")
	f.IntVar(&o.Parallel, "parallel", 1, "tasks at once")
	f.StringVar(&o.TestCmd, "test-cmd", "", "the command that runs one test of a task without test_cmd ({test}: the test id)")
	f.StringVar(&o.WorkDir, "workdir", "", "folder for the tasks' workspaces (default: a temporary one)")
	f.BoolVar(&o.Keep, "keep", false, "keep the workspaces after grading")
	f.StringVar(&o.Repos, "repos", "", "folder of local git mirrors where an owner/name repo is found (DIR/owner+name[/repo], DIR/owner/name[.git])")
	f.StringVar(&o.TestCmds, "test-cmds", "", `JSON file of test commands per repository, {"owner/name": "go test -run {test} ./..."}, for tasks without test_cmd`)
	f.StringVar(&o.Shard, "shard", "", "run shard I of N (I from 0): every N-th task by instance id")
	f.StringVar(&o.Out, "out", "", "write the JSON report here, and each finished task to its .results.jsonl as it finishes (running again resumes)")
	f.BoolVar(&merge, "merge", false, "the arguments are shard reports to combine (same suite and configuration, no overlap)")
	f.BoolVar(&compare, "compare", false, "the arguments are two reports A and B: print B − A task by task with a sign test and bootstrap intervals")
	return cmd
}

// RunSuite runs the suite file at path (eval.OpenSuite): the tasks a results log beside o.Out
// already holds are skipped, the others run and appended to it as they finish; the report
// holds the suite's order, earlier results included.
func RunSuite(ctx context.Context, st *store.Store, path string, o SuiteOptions, done func(eval.TaskResult)) (eval.TasksReport, error) {
	s, err := eval.OpenSuite(path, o, mainModel(o.Model))
	if err != nil {
		return eval.TasksReport{}, err
	}
	defer s.Close()
	s.More.Done = done
	return RunTasks(ctx, st, s.Tasks, s.Options, s.More)
}

// mainModel is the settings' main model when model is "" (a run without --model: the report
// names the model it used), else "".
func mainModel(model string) string {
	if model != "" {
		return ""
	}
	cfg, err := settings()
	if err != nil {
		return ""
	}
	return cfg.Models.Main
}

// RunTasks runs tasks with one engine: every task's turn goes through its runner as `tofu run`'s
// does, in a session of its own. more carries the suite's bookkeeping (results log, earlier
// results, run info, the done callback).
func RunTasks(ctx context.Context, st *store.Store, tasks []eval.Task, o TasksOptions, more eval.TasksOptions) (eval.TasksReport, error) {
	approve, err := eval.SuiteApproval(o.Approve)
	if err != nil {
		return eval.TasksReport{}, err
	}
	o.Approve = approve
	e, err := newEngine(st)
	if err != nil {
		return eval.TasksReport{}, err
	}
	defer e.Close()
	more = o.Apply(more, st)
	more.Agent = func(ctx context.Context, t eval.Task, ws string) (eval.AgentRun, error) {
		return runTask(ctx, st, e, o.RunOptions(t, ws))
	}
	// The tests run the code the agent wrote: inside the boundary its commands had.
	cfg, err := settings()
	if err != nil {
		return eval.TasksReport{}, err
	}
	more.Sandbox = session.CommandSandbox(cfg)
	return eval.RunTasks(ctx, tasks, more)
}

// runTask is one task's headless run, as `tofu run`'s.
func runTask(ctx context.Context, st *store.Store, e *engine.Engine, ro RunOptions) (eval.AgentRun, error) {
	ro, err := headless.CheckRun(st, ro, "")
	if err != nil {
		return eval.AgentRun{}, err
	}
	sid, end, err := runTurn(ctx, st, e, ro, nil, io.Discard, io.Discard)
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
