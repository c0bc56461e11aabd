package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// gitRun runs git in dir with an identity of its own, failing the test on an error.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// taskRepo makes a repository whose first commit has two bugs and a passing test, and whose
// second commit fixes both (the history a workspace must not show the agent).
func taskRepo(t *testing.T) (dir, base string) {
	t.Helper()
	dir = t.TempDir()
	write := func(name, body string) {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q")
	write("lib/add.sh", "add() { echo $(( $1 - $2 )); }\n")
	write("lib/mul.sh", "mul() { echo $(( $1 + $2 )); }\n")
	write("tests/ok_test.sh", "true\n")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "base")
	base = gitRun(t, dir, "rev-parse", "HEAD")
	write("lib/add.sh", "add() { echo $(( $1 + $2 )); }\n")
	write("lib/mul.sh", "mul() { echo $(( $1 * $2 )); }\n")
	gitRun(t, dir, "commit", "-q", "-am", "the fix")
	return dir, base
}

const addTestPatch = `diff --git a/tests/add_test.sh b/tests/add_test.sh
new file mode 100644
--- /dev/null
+++ b/tests/add_test.sh
@@ -0,0 +1,2 @@
+. lib/add.sh
+[ "$(add 2 3)" = 5 ]
`

// taskText is the task a request is about (the first user message).
func taskText(r llm.Request) string {
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			return m.Content
		}
	}
	return ""
}

func TestEvalTasksGradesEachTask(t *testing.T) {
	st, srv := runEnv(t)
	repoDir, base := taskRepo(t)
	head := gitRun(t, repoDir, "rev-parse", "HEAD")
	// The user's checkout has work in progress of its own: a change and a new file.
	os.WriteFile(filepath.Join(repoDir, "lib/mul.sh"), []byte("mul() { echo wip; }\n"), 0o644)
	os.WriteFile(filepath.Join(repoDir, "notes.txt"), []byte("mine\n"), 0o644)
	status := gitRun(t, repoDir, "status", "--porcelain")
	// The model first tries to fix add in the user's checkout (outside its workspace: denied),
	// then fixes add; on mul it writes a test that always passes and stops, which the
	// grader's own test file replaces.
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		step := toolStep(r)
		switch {
		case strings.Contains(taskText(r), "add") && step == 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("o", "write_file", map[string]any{"path": filepath.Join(repoDir, "lib/add.sh"), "content": "add() { echo 5; }\n"})}}
		case strings.Contains(taskText(r), "add") && step == 1:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("e", "edit_files", map[string]any{"edits": []map[string]any{
				{"path": "lib/add.sh", "old_string": "$1 - $2", "new_string": "$1 + $2"}}})}}
		case strings.Contains(taskText(r), "mul") && step == 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("w", "write_file", map[string]any{"path": "tests/mul_test.sh", "content": "true\n"})}}
		case strings.Contains(taskText(r), "loop"):
			// Searches forever (a new pattern each step): the step limit ends the turn.
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("g"+strconv.Itoa(step), "grep", map[string]any{"searches": []map[string]any{{"pattern": "x" + strconv.Itoa(step)}}})}}
		}
		return scripted.Reply{Text: "Done."}
	})
	suite := []eval.Task{
		{InstanceID: "add-1", Repo: repoDir, BaseCommit: base, ProblemStatement: "add 2 3 prints -1, not 5: fix add",
			TestPatch: addTestPatch, FailToPass: []string{"add"}, PassToPass: []string{"ok"}, TestCmd: "sh tests/{test}_test.sh"},
		{InstanceID: "mul-1", Repo: repoDir, BaseCommit: base, ProblemStatement: "mul 2 3 prints 5, not 6: fix mul",
			TestFiles:  map[string]string{"tests/mul_test.sh": ". lib/mul.sh\n[ \"$(mul 2 3)\" = 6 ]\n"},
			FailToPass: []string{"mul"}, PassToPass: []string{"ok"}},
		{InstanceID: "loop-1", Repo: repoDir, BaseCommit: base, ProblemStatement: "loop until the sum is right",
			TestPatch: addTestPatch, FailToPass: []string{"add"}},
	}
	var finished []string
	// The suite's safe profile lets the agent edit its workspace (and nothing else).
	rep, err := RunTasks(context.Background(), st, suite, TasksOptions{Approve: "safe", Mode: "chat", MaxSteps: 4, Parallel: 2, TestCmd: "sh tests/{test}_test.sh", Suite: "tiny"},
		eval.TasksOptions{Done: func(r eval.TaskResult) { finished = append(finished, r.InstanceID) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(finished) != 3 || len(rep.Tasks) != 3 {
		t.Fatalf("finished %v, report %+v", finished, rep)
	}
	add, mul, loop := rep.Tasks[0], rep.Tasks[1], rep.Tasks[2]
	if !add.Resolved || add.Error != "" || add.TestsPassed != 2 || add.TestsFailed != 0 || add.EndReason != "done" || add.Steps != 3 {
		dumpSession(t, st, add.Session)
		t.Fatalf("add: %+v", add)
	}
	if mul.Resolved || mul.Error != "" || mul.TestsPassed != 1 || mul.TestsFailed != 1 || !mul.PassToPass[0].Passed || mul.FailToPass[0].Passed {
		t.Fatalf("mul: %+v", mul)
	}
	if loop.Resolved || loop.Error != "" || loop.EndReason != "max_steps" || loop.Steps != 4 || loop.TestsFailed != 1 {
		t.Fatalf("loop: %+v", loop)
	}
	// The figures are the sessions' own: the usage events of each task's session.
	for _, r := range rep.Tasks {
		info, err := st.Session(r.Session)
		if err != nil {
			t.Fatalf("%s: session %q: %v", r.InstanceID, r.Session, err)
		}
		if !strings.HasSuffix(info.Workspace, string(filepath.Separator)+r.InstanceID) {
			t.Fatalf("%s ran in %s", r.InstanceID, info.Workspace)
		}
		if info.Title != "eval tiny · "+r.InstanceID {
			t.Fatalf("%s: session titled %q", r.InstanceID, info.Title)
		}
		// The window groups the suite's sessions and shows each outcome from this label.
		if e := info.Eval; e == nil || e.Suite != "tiny" || e.Instance != r.InstanceID || !e.Graded || e.Resolved != r.Resolved ||
			e.TestsPassed != r.TestsPassed || e.TestsFailed != r.TestsFailed {
			t.Fatalf("%s: eval label %+v", r.InstanceID, info.Eval)
		}
		calls, in, out := usageOf(t, st, r.Session)
		if r.ModelCalls != calls || r.InputTokens != in || r.OutputTokens != out || calls == 0 || in == 0 {
			t.Fatalf("%s: report %d calls %d in %d out, session %d %d %d", r.InstanceID, r.ModelCalls, r.InputTokens, r.OutputTokens, calls, in, out)
		}
	}
	s := rep.Summary
	if s.Tasks != 3 || s.Resolved != 1 || s.PassAt1 != 1.0/3 || s.InputTokens != add.InputTokens+mul.InputTokens+loop.InputTokens ||
		s.TokensPerResolved != float64(s.InputTokens+s.OutputTokens) {
		t.Fatalf("summary %+v", s)
	}
	// The task's repository was only read.
	if got := gitRun(t, repoDir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved to %s", got)
	}
	if st := gitRun(t, repoDir, "status", "--porcelain"); st != status {
		t.Fatalf("the checkout changed:\n%s\nwas\n%s", st, status)
	}
	for name, want := range map[string]string{"lib/add.sh": "add() { echo $(( $1 + $2 )); }\n", "lib/mul.sh": "mul() { echo wip; }\n", "notes.txt": "mine\n"} {
		if b, _ := os.ReadFile(filepath.Join(repoDir, name)); string(b) != want {
			t.Fatalf("%s is now %q", name, b)
		}
	}
	if evs, _ := st.Events(add.Session); !strings.Contains(eventsText(evs), "--approve=suite denies it") {
		t.Fatalf("the write into the checkout was not denied by the suite profile")
	}
	b, _ := json.Marshal(rep)
	for _, key := range []string{`"instance_id"`, `"resolved"`, `"fail_to_pass"`, `"pass_at_1"`, `"tokens_per_resolved"`, `"session"`, `"cached_tokens"`, `"cost_usd"`, `"wall_ms"`} {
		if !strings.Contains(string(b), key) {
			t.Fatalf("the JSON report has no %s: %s", key, b)
		}
	}
}

func usageOf(t *testing.T, st *store.Store, sid string) (calls, in, out int) {
	t.Helper()
	evs, err := st.Events(sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == store.EventUsage {
			var u llm.Usage
			if err := ev.Decode(&u); err != nil {
				t.Fatal(err)
			}
			calls++
			in += u.InputTokens
			out += u.OutputTokens
		}
	}
	return calls, in, out
}

func dumpSession(t *testing.T, st *store.Store, sid string) {
	evs, _ := st.Events(sid)
	for _, ev := range evs {
		t.Logf("%s %s", ev.Type, ev.Data)
	}
}

func eventsText(evs []store.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.Write(ev.Data)
		b.WriteByte('\n')
	}
	return b.String()
}
