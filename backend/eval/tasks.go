package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Task is one coding task of a suite (a JSON line; docs/EVAL-TASKS.md). The field names are
// SWE-bench's where it has them, so a SWE-bench record whose repository is on disk reads as is.
type Task struct {
	InstanceID string `json:"instance_id"`
	// Repo is a local path or git mirror (relative: from the suite's folder), or SWE-bench's
	// "owner/name" found in a folder of mirrors (ResolveRepos).
	Repo             string `json:"repo"`
	BaseCommit       string `json:"base_commit"` // the commit the workspace starts from
	ProblemStatement string `json:"problem_statement"`
	Setup            string `json:"setup,omitempty"` // a shell command run in the workspace before the agent
	TestPatch        string `json:"test_patch,omitempty"`
	// TestFiles are written (path → content) after the agent's turn, like TestPatch.
	TestFiles map[string]string `json:"test_files,omitempty"`
	// FailToPass must pass after the agent's change (they fail at the base); PassToPass must
	// still pass. Both hold test ids that TestCmd runs one at a time.
	FailToPass StringList `json:"FAIL_TO_PASS"`
	PassToPass StringList `json:"PASS_TO_PASS"`
	// TestCmd runs one test: {test} is replaced by the test id (shell-quoted), else the id is
	// appended. Empty: the suite's --test-cmd.
	TestCmd string `json:"test_cmd,omitempty"`
	// TestTimeoutSec bounds each test command (0: 600 s).
	TestTimeoutSec int `json:"test_timeout_sec,omitempty"`
}

// StringList reads a JSON list of strings, or a string holding one (SWE-bench's files store
// FAIL_TO_PASS as the text of a JSON list).
type StringList []string

func (l *StringList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			*l = nil
			return nil
		}
		b = []byte(s)
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("a list of test ids: %w", err)
	}
	*l = list
	return nil
}

// LoadTasks reads a suite: one task per line, blank lines and lines starting with # skipped.
// The repos are as written: ResolveRepos finds them on disk.
func LoadTasks(path string) ([]Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20) // SWE-bench lines hold whole patches
	var tasks []Task
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var t Task
		if err := json.Unmarshal([]byte(line), &t); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if seen[t.InstanceID] {
			return nil, fmt.Errorf("%s:%d: instance_id %q appears twice", path, n, t.InstanceID)
		}
		seen[t.InstanceID] = true
		tasks = append(tasks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tasks, nil
}

func (t Task) check() error {
	switch {
	case t.InstanceID == "":
		return fmt.Errorf("instance_id is missing")
	case t.Repo == "":
		return fmt.Errorf("%s: repo is missing", t.InstanceID)
	case t.BaseCommit == "":
		return fmt.Errorf("%s: base_commit is missing", t.InstanceID)
	case t.ProblemStatement == "":
		return fmt.Errorf("%s: problem_statement is missing", t.InstanceID)
	case len(t.FailToPass)+len(t.PassToPass) == 0:
		return fmt.Errorf("%s: no tests (FAIL_TO_PASS, PASS_TO_PASS)", t.InstanceID)
	}
	return nil
}
