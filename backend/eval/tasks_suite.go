package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/headless"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// TaskRunOptions are how `tofu eval tasks` runs each task of a suite: its agent's flags.
type TaskRunOptions struct {
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
	TaskRunOptions
	Repos    string // folder of mirrors for owner/name repos
	TestCmds string // JSON file: {"owner/name": "test command"}
	Shard    string // "I/N"
	Out      string // the JSON report; its results log is ResultsPath(Out)
}

// Suite is a suite file made ready to run: its tasks found on disk and the shard's picked,
// the agent's options labelled with the suite and the run, and the bookkeeping (the results
// log beside the report, the tasks it holds finished, what the run is) for RunTasks.
type Suite struct {
	Tasks   []Task
	Options TaskRunOptions
	More    TasksOptions
}

// OpenSuite reads the suite file at path for o. mainModel names the settings' main model, for
// the report's configuration when o names none. Close the suite after running it.
func OpenSuite(path string, o SuiteOptions, mainModel string) (*Suite, error) {
	tasks, err := LoadTasks(path)
	if err != nil {
		return nil, err
	}
	cmds := map[string]string{}
	if o.TestCmds != "" {
		b, err := os.ReadFile(o.TestCmds)
		if err != nil {
			return nil, fmt.Errorf("--test-cmds: %w", err)
		}
		if err := json.Unmarshal(b, &cmds); err != nil {
			return nil, fmt.Errorf("--test-cmds %s: want {\"owner/name\": \"command\"}: %w", o.TestCmds, err)
		}
	}
	if err := ResolveRepos(tasks, RepoOptions{SuiteDir: filepath.Dir(path), Mirrors: o.Repos, TestCmds: cmds}); err != nil {
		return nil, err
	}
	shard, err := ParseShard(o.Shard)
	if err != nil {
		return nil, err
	}
	digest, err := SuiteDigest(path)
	if err != nil {
		return nil, err
	}
	o.Suite = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	o.Run = time.Now().Format("2006-01-02 15:04")
	if o.Out != "" {
		o.Run = strings.TrimSuffix(filepath.Base(o.Out), filepath.Ext(o.Out))
	}
	info := RunInfo{Suite: filepath.Base(path), SuiteSHA256: digest, SuiteTasks: len(tasks), Shard: shard.String(), Config: o.Config(mainModel)}
	s := &Suite{Tasks: shard.Of(tasks), Options: o.TaskRunOptions, More: TasksOptions{Run: info}}
	if o.Out != "" {
		if s.More.Log, s.More.Finished, err = OpenResults(ResultsPath(o.Out), info); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Close closes the suite's results log.
func (s *Suite) Close() {
	if s.More.Log != nil {
		s.More.Log.Close()
	}
}

// Config is what the report records of the configuration. Without a model, the model is
// mainModel, the settings' main model, named (the report said model "").
func (o TaskRunOptions) Config(mainModel string) RunConfig {
	model := o.Model
	if model == "" {
		model = mainModel
	}
	return RunConfig{Model: model, Mode: o.Mode, Context: o.Context, Approve: o.Approve, MaxSteps: o.MaxSteps,
		MaxCost: o.MaxCost, MaxTimeSec: o.MaxTime.Seconds(), TestCmd: o.TestCmd}
}

// SuiteApproval is the approval mode a suite's --approve stands for: safe is the suite
// profile (permission.ModeSuite); ask would wait for a human.
func SuiteApproval(approve string) (string, error) {
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

// Apply puts o's part of a suite's bookkeeping into more: where the workspaces go, how many
// tasks at once, the test command and the time bound, and the store the sessions are in.
func (o TaskRunOptions) Apply(more TasksOptions, st *store.Store) TasksOptions {
	more.Store, more.WorkDir, more.Keep, more.Parallel, more.TestCmd, more.MaxTime = st, o.WorkDir, o.Keep, o.Parallel, o.TestCmd, o.MaxTime
	return more
}

// RunOptions is task t's headless run (`tofu run` with the problem statement as the task, in
// workspace ws), in a session titled and labelled with the suite and the task.
func (o TaskRunOptions) RunOptions(t Task, ws string) headless.RunOptions {
	return headless.RunOptions{
		Task: t.ProblemStatement, Workspace: ws, Model: o.Model, Approve: o.Approve, Mode: o.Mode,
		MaxSteps: o.MaxSteps, MaxCost: o.MaxCost, Context: o.Context, Stdin: strings.NewReader(""),
		Title: SessionTitle(o.Suite, t.InstanceID), Eval: &store.EvalTask{Suite: o.Suite, Instance: t.InstanceID, Run: o.Run},
	}
}

// SessionTitle labels a task's session so a suite's runs sort and search together in the
// sidebar: "eval SUITE · INSTANCE".
func SessionTitle(suite, instance string) string {
	if suite == "" {
		return "eval · " + instance
	}
	return "eval " + suite + " · " + instance
}

// WriteReport writes rep to path (JSON, replaced whole) when set, then prints it on out, as
// JSON or as text.
func WriteReport(rep TasksReport, path string, asJSON bool, out io.Writer) error {
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

// MergeReportFiles combines the shard reports at paths (MergeReports).
func MergeReportFiles(paths []string) (TasksReport, error) {
	var reps []TasksReport
	for _, p := range paths {
		r, err := ReadReport(p)
		if err != nil {
			return TasksReport{}, err
		}
		reps = append(reps, r)
	}
	return MergeReports(paths, reps)
}

// CompareReportFiles compares the reports at a and b (Compare).
func CompareReportFiles(a, b string) (Comparison, error) {
	ra, err := ReadReport(a)
	if err != nil {
		return Comparison{}, err
	}
	rb, err := ReadReport(b)
	if err != nil {
		return Comparison{}, err
	}
	return Compare(ra, rb)
}
