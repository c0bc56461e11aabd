package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// TestOutcome is one test after the agent's turn. The JSON keys are documented in
// docs/EVAL-TASKS.md and kept stable.
type TestOutcome struct {
	Test   string `json:"test"`
	Passed bool   `json:"passed"`
	Output string `json:"output,omitempty"` // the end of a failed test's output
}

// TaskResult is one task of a suite run.
type TaskResult struct {
	InstanceID        string        `json:"instance_id"`
	Resolved          bool          `json:"resolved"`
	FailToPass        []TestOutcome `json:"fail_to_pass"`
	PassToPass        []TestOutcome `json:"pass_to_pass"`
	TestsPassed       int           `json:"tests_passed"`
	TestsFailed       int           `json:"tests_failed"`
	EndReason         string        `json:"end_reason"`
	Steps             int           `json:"steps"`
	ModelCalls        int           `json:"model_calls"`
	InputTokens       int           `json:"input_tokens"`
	OutputTokens      int           `json:"output_tokens"`
	CachedTokens      int           `json:"cached_tokens"`
	LocalInputTokens  int           `json:"local_input_tokens"`
	LocalOutputTokens int           `json:"local_output_tokens"`
	CostUSD           float64       `json:"cost_usd"`
	WallMS            int64         `json:"wall_ms"`
	Session           string        `json:"session"`
	Error             string        `json:"error,omitempty"`
}

// TasksSummary is the suite's totals.
type TasksSummary struct {
	Tasks        int     `json:"tasks"`
	Resolved     int     `json:"resolved"`
	PassAt1      float64 `json:"pass_at_1"` // resolved / tasks, one attempt each
	Errors       int     `json:"errors"`
	ModelCalls   int     `json:"model_calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CachedTokens int     `json:"cached_tokens"`
	// TokensPerResolved is (input + output tokens of the whole suite) / resolved tasks (0 when
	// none was resolved): what a solved task cost, failures included.
	TokensPerResolved float64 `json:"tokens_per_resolved"`
	CostUSD           float64 `json:"cost_usd"`
	WallMS            int64   `json:"wall_ms"` // the suite's, start to end (tasks overlap with --parallel)
	// Resumed counts the tasks whose results came from an earlier, interrupted run.
	Resumed int `json:"resumed,omitempty"`
}

// TasksReport is a suite run: the tasks in the suite's order, then the totals.
type TasksReport struct {
	Run     RunInfo      `json:"run"`
	Tasks   []TaskResult `json:"tasks"`
	Summary TasksSummary `json:"summary"`
}

func newTasksReport(results []TaskResult, wall time.Duration) TasksReport {
	s := TasksSummary{Tasks: len(results), WallMS: wall.Milliseconds()}
	for _, r := range results {
		if r.Resolved {
			s.Resolved++
		}
		if r.Error != "" {
			s.Errors++
		}
		s.ModelCalls += r.ModelCalls
		s.InputTokens += r.InputTokens
		s.OutputTokens += r.OutputTokens
		s.CachedTokens += r.CachedTokens
		s.CostUSD += r.CostUSD
	}
	if s.Tasks > 0 {
		s.PassAt1 = float64(s.Resolved) / float64(s.Tasks)
	}
	if s.Resolved > 0 {
		s.TokensPerResolved = float64(s.InputTokens+s.OutputTokens) / float64(s.Resolved)
	}
	return TasksReport{Tasks: results, Summary: s}
}

// WriteJSON writes the report as indented JSON.
func (r TasksReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes a table: a row per task, then the totals and each task's error.
func (r TasksReport) WriteText(w io.Writer) error {
	if r.Run.Suite != "" {
		c := r.Run.Config
		fmt.Fprintf(w, "suite %s (%d tasks", r.Run.Suite, r.Run.SuiteTasks)
		if r.Run.Shard != "" {
			fmt.Fprintf(w, ", shard %s", r.Run.Shard)
		}
		if len(r.Run.Shards) > 0 {
			fmt.Fprintf(w, ", shards %v merged", r.Run.Shards)
		}
		fmt.Fprintf(w, "); model %s, mode %s, approve %s, max %d steps", show(c.Model), c.Mode, c.Approve, c.MaxSteps)
		if c.Context != "" {
			fmt.Fprintf(w, ", context %s", c.Context)
		}
		if c.MaxTimeSec > 0 {
			fmt.Fprintf(w, ", max time %.0f s", c.MaxTimeSec)
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tresolved\ttests ok/failed\tend\tsteps\tcalls\ttokens in\tout\tcached\tcost $\twall s\tsession")
	for _, t := range r.Tasks {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%d\t%d\t%d\t%d\t%d\t%.4f\t%.1f\t%s\n", t.InstanceID, yesNo(t.Resolved),
			t.TestsPassed, t.TestsFailed, t.EndReason, t.Steps, t.ModelCalls, t.InputTokens, t.OutputTokens,
			t.CachedTokens, t.CostUSD, float64(t.WallMS)/1000, t.Session)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Summary
	if s.Resumed > 0 {
		fmt.Fprintf(w, "\n%d task(s) resumed from the results log", s.Resumed)
	}
	fmt.Fprintf(w, "\nPass@1 %.3f (%d/%d resolved, %d error(s)); %d model calls, %d tokens in (%d cached), %d out, %.0f tokens per resolved task, $%.4f, %.1f s\n",
		s.PassAt1, s.Resolved, s.Tasks, s.Errors, s.ModelCalls, s.InputTokens, s.CachedTokens, s.OutputTokens, s.TokensPerResolved, s.CostUSD, float64(s.WallMS)/1000)
	for _, t := range r.Tasks {
		if t.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", t.InstanceID, t.Error)
		}
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
