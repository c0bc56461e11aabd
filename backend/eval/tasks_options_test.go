package eval

import (
	"testing"
	"time"
)

// TestSuiteRunsNeverAsk: a suite's --approve safe is the suite profile, all and never stay,
// and ask (which would wait for a human) or a misspelling is refused with what to use.
func TestSuiteRunsNeverAsk(t *testing.T) {
	for in, want := range map[string]string{"": "suite", "safe": "suite", "suite": "suite", "all": "all", "never": "never"} {
		if got, err := SuiteApproval(in); err != nil || got != want {
			t.Errorf("SuiteApproval(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"ask", "always"} {
		if got, err := SuiteApproval(bad); err == nil {
			t.Errorf("SuiteApproval(%q) = %q: not refused", bad, got)
		}
	}
}

// TestTaskRunIsLabelledWithItsSuite: each task's run is tofu run's with the problem statement,
// in the task's workspace, titled and labelled with the suite, the task and the run; the
// report names the settings' main model when no model was given.
func TestTaskRunIsLabelledWithItsSuite(t *testing.T) {
	o := TaskRunOptions{Mode: "chat", Approve: "suite", MaxSteps: 9, MaxCost: 0.5, Context: "l1", MaxTime: time.Minute, Suite: "tiny", Run: "r1"}
	ro := o.RunOptions(Task{InstanceID: "a-1", ProblemStatement: "fix add"}, "/ws")
	if ro.Task != "fix add" || ro.Workspace != "/ws" || ro.Approve != "suite" || ro.MaxSteps != 9 || ro.MaxCost != 0.5 || ro.Context != "l1" || ro.Stdin == nil {
		t.Errorf("run options %+v", ro)
	}
	if ro.Title != "eval tiny · a-1" || ro.Eval == nil || ro.Eval.Suite != "tiny" || ro.Eval.Instance != "a-1" || ro.Eval.Run != "r1" {
		t.Errorf("title %q, label %+v", ro.Title, ro.Eval)
	}
	if got := SessionTitle("", "a-1"); got != "eval · a-1" {
		t.Errorf("no suite: %q", got)
	}
	if c := o.Config("qwen3:8b"); c.Model != "qwen3:8b" || c.MaxTimeSec != 60 || c.Approve != "suite" {
		t.Errorf("config %+v", c)
	}
	o.Model = "other"
	if c := o.Config("qwen3:8b"); c.Model != "other" {
		t.Errorf("with a model: %+v", c)
	}
}
