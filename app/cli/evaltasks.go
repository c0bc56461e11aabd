package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// TasksOptions are the inputs of `tofu eval tasks`.
type TasksOptions struct {
	Model, Mode, Approve, Context, TestCmd, WorkDir string
	MaxSteps, Parallel                              int
	MaxCost                                         float64
	MaxTime                                         time.Duration
	Keep                                            bool
	// Suite labels the sessions ("eval SUITE · INSTANCE"): the suite file's name; Run tells
	// runs of one suite apart in the window (the report's name, else the start time).
	Suite, Run string
}

// SuiteOptions are a suite run's inputs beyond the agent's: where the repositories are, the
// shard, and the report (with its results log beside it, which makes a run resumable).
type SuiteOptions struct {
	TasksOptions
	Repos    string // folder of mirrors for owner/name repos
	TestCmds string // JSON file: {"owner/name": "test command"}
	Shard    string // "I/N"
	Out      string // the JSON report; its results log is eval.ResultsPath(Out)
}

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
				return compareReports(args[0], args[1], out)
			case merge:
				rep, err := mergeReports(args)
				if err != nil {
					return err
				}
				if miss := rep.Missing(); miss != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), "note: "+miss)
				}
				return writeReport(rep, o.Out, asJSON, out)
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
			return writeReport(rep, o.Out, asJSON, out)
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

// RunSuite runs the suite file at path: its tasks found on disk, the shard's picked, those a
// results log beside o.Out already holds skipped, the others run and appended to it as they
// finish, and the report (the suite's order, earlier results included) written to o.Out.
func RunSuite(ctx context.Context, st *store.Store, path string, o SuiteOptions, done func(eval.TaskResult)) (eval.TasksReport, error) {
	tasks, err := eval.LoadTasks(path)
	if err != nil {
		return eval.TasksReport{}, err
	}
	cmds := map[string]string{}
	if o.TestCmds != "" {
		b, err := os.ReadFile(o.TestCmds)
		if err != nil {
			return eval.TasksReport{}, fmt.Errorf("--test-cmds: %w", err)
		}
		if err := json.Unmarshal(b, &cmds); err != nil {
			return eval.TasksReport{}, fmt.Errorf("--test-cmds %s: want {\"owner/name\": \"command\"}: %w", o.TestCmds, err)
		}
	}
	if err := eval.ResolveRepos(tasks, eval.RepoOptions{SuiteDir: filepath.Dir(path), Mirrors: o.Repos, TestCmds: cmds}); err != nil {
		return eval.TasksReport{}, err
	}
	shard, err := eval.ParseShard(o.Shard)
	if err != nil {
		return eval.TasksReport{}, err
	}
	digest, err := eval.SuiteDigest(path)
	if err != nil {
		return eval.TasksReport{}, err
	}
	o.Suite = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	o.Run = time.Now().Format("2006-01-02 15:04")
	if o.Out != "" {
		o.Run = strings.TrimSuffix(filepath.Base(o.Out), filepath.Ext(o.Out))
	}
	info := eval.RunInfo{Suite: filepath.Base(path), SuiteSHA256: digest, SuiteTasks: len(tasks), Shard: shard.String(), Config: o.config()}
	var log *eval.ResultsLog
	var finished map[string]eval.TaskResult
	if o.Out != "" {
		if log, finished, err = eval.OpenResults(eval.ResultsPath(o.Out), info); err != nil {
			return eval.TasksReport{}, err
		}
		defer log.Close()
	}
	return RunTasks(ctx, st, shard.Of(tasks), o.TasksOptions, eval.TasksOptions{Log: log, Finished: finished, Run: info, Done: done})
}

// config is what the report records of the configuration. Without --model, the model is the
// settings' main model, named (the report said model "").
func (o TasksOptions) config() eval.RunConfig {
	model := o.Model
	if model == "" {
		if cfg, err := settings(); err == nil {
			model = cfg.Models.Main
		}
	}
	return eval.RunConfig{Model: model, Mode: o.Mode, Context: o.Context, Approve: o.Approve, MaxSteps: o.MaxSteps,
		MaxCost: o.MaxCost, MaxTimeSec: o.MaxTime.Seconds(), TestCmd: o.TestCmd}
}

// RunTasks runs tasks with one App: every task's turn goes through its runner as `tofu run`'s
// does, in a session of its own. more carries the suite's bookkeeping (results log, earlier
// results, run info, the done callback).
func RunTasks(ctx context.Context, st *store.Store, tasks []eval.Task, o TasksOptions, more eval.TasksOptions) (eval.TasksReport, error) {
	approve, err := suiteApproval(o.Approve)
	if err != nil {
		return eval.TasksReport{}, err
	}
	o.Approve = approve
	a, err := newApp(st, nopEmitter{}, nil)
	if err != nil {
		return eval.TasksReport{}, err
	}
	defer a.Close()
	more.Agent = func(ctx context.Context, t eval.Task, ws string) (eval.AgentRun, error) {
		return runTask(ctx, st, a, o, t, ws)
	}
	more.Store, more.WorkDir, more.Keep, more.Parallel, more.TestCmd, more.MaxTime = st, o.WorkDir, o.Keep, o.Parallel, o.TestCmd, o.MaxTime
	// The tests run the code the agent wrote: inside the boundary its commands had.
	cfg, err := settings()
	if err != nil {
		return eval.TasksReport{}, err
	}
	more.Sandbox = session.CommandSandbox(cfg)
	return eval.RunTasks(ctx, tasks, more)
}

// suiteApproval is the approval mode a suite's --approve stands for: safe is the suite
// profile (permission.ModeSuite); ask would wait for a human.
func suiteApproval(approve string) (string, error) {
	switch approve {
	case "", "safe", string(permission.ModeSuite):
		return string(permission.ModeSuite), nil
	case string(permission.ModeAll), string(permission.ModeNever):
		return approve, nil
	case string(permission.ModeAsk):
		return "", errors.New("--approve ask would wait for a human: a suite runs with safe, all or never")
	}
	return "", fmt.Errorf("--approve must be safe, all or never, not %q", approve)
}

// runTask is one task's headless run: `tofu run` with the problem statement as the task, in
// a session titled with the suite and the task.
func runTask(ctx context.Context, st *store.Store, a *app.App, o TasksOptions, t eval.Task, ws string) (eval.AgentRun, error) {
	ro := RunOptions{
		Task: t.ProblemStatement, Workspace: ws, Model: o.Model, Approve: o.Approve, Mode: o.Mode,
		MaxSteps: o.MaxSteps, MaxCost: o.MaxCost, Context: o.Context, Stdin: strings.NewReader(""),
		Title: SessionTitle(o.Suite, t.InstanceID), Eval: &store.EvalTask{Suite: o.Suite, Instance: t.InstanceID, Run: o.Run},
	}
	ro, err := headless.CheckRun(st, ro, "")
	if err != nil {
		return eval.AgentRun{}, err
	}
	sid, end, err := runTurn(ctx, st, a, ro, nil, io.Discard, io.Discard)
	if err == nil && end.Reason == "error" && end.Err != nil {
		err = end.Err
	}
	return eval.AgentRun{Session: sid, Reason: string(end.Reason), Steps: end.Steps}, err
}

// SessionTitle labels a task's session so a suite's runs sort and search together in the
// sidebar: "eval SUITE · INSTANCE".
func SessionTitle(suite, instance string) string {
	if suite == "" {
		return "eval · " + instance
	}
	return "eval " + suite + " · " + instance
}

// writeReport writes rep to path (JSON, replaced whole) when set, then prints it.
func writeReport(rep eval.TasksReport, path string, asJSON bool, out io.Writer) error {
	if path != "" {
		tmp := path + ".tmp"
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		err = rep.WriteJSON(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("--out: %w", err)
		}
	}
	if asJSON {
		return rep.WriteJSON(out)
	}
	return rep.WriteText(out)
}

func mergeReports(paths []string) (eval.TasksReport, error) {
	var reps []eval.TasksReport
	for _, p := range paths {
		r, err := eval.ReadReport(p)
		if err != nil {
			return eval.TasksReport{}, err
		}
		reps = append(reps, r)
	}
	return eval.MergeReports(paths, reps)
}

func compareReports(a, b string, out io.Writer) error {
	ra, err := eval.ReadReport(a)
	if err != nil {
		return err
	}
	rb, err := eval.ReadReport(b)
	if err != nil {
		return err
	}
	c, err := eval.Compare(ra, rb)
	if err != nil {
		return err
	}
	return c.WriteText(out)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
