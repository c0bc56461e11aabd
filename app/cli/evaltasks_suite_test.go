package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// writeSuite writes tasks as a JSONL suite in dir.
func writeSuite(t *testing.T, dir string, tasks ...map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	for _, task := range tasks {
		line, err := json.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(dir, "suite.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// addTask is a task on taskRepo whose fix is add's.
func addTask(id, repo, base string) map[string]any {
	return map[string]any{"instance_id": id, "repo": repo, "base_commit": base,
		"problem_statement": id + ": add 2 3 prints -1, not 5: fix add", "test_patch": addTestPatch,
		"FAIL_TO_PASS": `["add"]`, "PASS_TO_PASS": []string{"ok"}}
}

// fixAdd is the model that fixes add: an edit, then done.
func fixAdd(r llm.Request) scripted.Reply {
	if toolStep(r) == 0 {
		return scripted.Reply{ToolCalls: []llm.ToolCall{tc("e", "edit_files", map[string]any{"edits": []map[string]any{
			{"path": "lib/add.sh", "old_string": "$1 - $2", "new_string": "$1 + $2"}}})}}
	}
	return scripted.Reply{Text: "Fixed."}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// TestEvalTasksResumesAfterKill SIGKILLs a real `tofu eval tasks` process while its second
// task's turn waits for the model, then runs the same command again: the first task (in the
// results log, on disk before the second began) is not run again, the second is, and the
// report holds both.
func TestEvalTasksResumesAfterKill(t *testing.T) {
	srv := scripted.New(t, scripted.DemoModel())
	isolate(t, srv.URL)
	repo, base := taskRepo(t)
	dir := t.TempDir()
	suite := writeSuite(t, dir, addTask("a-first", repo, base), addTask("b-second", repo, base))
	out := filepath.Join(dir, "run.json")
	var mu sync.Mutex
	calls := map[string]int{} // "run/task" → model calls
	run := 1
	reached, release := make(chan struct{}), make(chan struct{})
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		task := strings.Fields(taskText(r))[0]
		mu.Lock()
		calls[strconv.Itoa(run)+"/"+task]++
		first := run == 1
		mu.Unlock()
		if first && task == "b-second:" {
			close(reached)
			<-release // the process is killed meanwhile
		}
		return fixAdd(r)
	})
	data := t.TempDir()
	tofu := func() *exec.Cmd {
		c := exec.Command(os.Args[0], "-test.run=^TestCLIHelper$")
		c.Env = append(os.Environ(), "TOFU_CLI_HELPER=1", "XDG_DATA_HOME="+data, "TOFU_CLI_ARGS="+strings.Join(
			[]string{"eval", "tasks", "--out", out, "--test-cmd", "sh tests/{test}_test.sh", suite}, "\x1f"),
			"TMPDIR="+t.TempDir()) // killed, it leaves its temporary files there, not in /tmp
		return c
	}
	first := tofu()
	var stderr bytes.Buffer
	first.Stderr = &stderr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	select {
	case <-reached:
	case err := <-exited:
		t.Fatalf("the suite ended before its second task: %v\n%s", err, stderr.String())
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	close(release)
	if ws, ok := first.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the first run was not killed: %v", first.ProcessState)
	}
	log := eval.ResultsPath(out)
	if lines := readLines(t, log); len(lines) != 2 || !strings.Contains(lines[1], `"instance_id":"a-first"`) {
		t.Fatalf("results log after the kill:\n%s", strings.Join(lines, "\n"))
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a report was written by the killed run")
	}

	mu.Lock()
	run = 2
	mu.Unlock()
	second := tofu()
	if b, err := second.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, b)
	}
	mu.Lock()
	if calls["2/a-first:"] != 0 || calls["2/b-second:"] != 2 || calls["1/a-first:"] != 2 {
		t.Fatalf("model calls %v", calls)
	}
	mu.Unlock()
	rep, err := eval.ReadReport(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tasks) != 2 || rep.Tasks[0].InstanceID != "a-first" || !rep.Tasks[0].Resolved || !rep.Tasks[1].Resolved ||
		rep.Summary.Resumed != 1 || rep.Summary.Resolved != 2 || rep.Run.Config.Approve != "safe" {
		t.Fatalf("report %+v", rep)
	}
	if lines := readLines(t, log); len(lines) != 3 {
		t.Fatalf("results log after the resume:\n%s", strings.Join(lines, "\n"))
	}
	// Both sessions are in the store, titled with the suite and the task.
	st, err := store.Open(filepath.Join(data, "tofu"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range rep.Tasks {
		info, err := st.Session(r.Session)
		if err != nil || info.Title != "eval suite · "+r.InstanceID || info.Eval == nil || info.Eval.Run != "run" || !info.Eval.Resolved {
			t.Fatalf("%s: session %q %+v %v", r.InstanceID, r.Session, info, err)
		}
	}
}

// TestEvalTasksShardMergeCompare runs a SWE-bench-style suite (repo as owner/name, tests as
// the text of a JSON list) from a folder of bare mirrors with a per-repository test command,
// in two shards whose reports merge into the whole suite; merging a shard twice is refused;
// --compare sets the merged run against one with another step limit.
func TestEvalTasksShardMergeCompare(t *testing.T) {
	st, srv := runEnv(t)
	srv.DefaultFunc(fixAdd)
	repo, base := taskRepo(t)
	dir := t.TempDir()
	mirror := filepath.Join(dir, "mirrors", "acme+calc", "repo") // the fetch tool's layout
	if b, err := exec.Command("git", "clone", "-q", "--bare", repo, mirror).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	os.RemoveAll(repo) // only the mirror is left
	suite := writeSuite(t, dir, addTask("c-3", "acme/calc", base), addTask("a-1", "acme/calc", base), addTask("b-2", "acme/calc", base))
	cmds := filepath.Join(dir, "test-cmds.json")
	os.WriteFile(cmds, []byte(`{"acme/calc": "sh tests/{test}_test.sh"}`), 0o644)
	o := SuiteOptions{TaskRunOptions: TasksOptions{Approve: "safe", Mode: "chat", MaxSteps: 8}, Repos: filepath.Join(dir, "mirrors"), TestCmds: cmds}
	var names []string
	for _, shard := range []string{"0/2", "1/2"} {
		o.Shard, o.Out = shard, filepath.Join(dir, "shard"+shard[:1]+".json")
		rep, err := RunSuite(context.Background(), st, suite, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := eval.WriteReport(rep, o.Out, false, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		names = append(names, o.Out)
	}
	s0, _ := eval.ReadReport(names[0])
	s1, _ := eval.ReadReport(names[1])
	if len(s0.Tasks) != 2 || s0.Tasks[0].InstanceID != "c-3" || s0.Tasks[1].InstanceID != "a-1" || len(s1.Tasks) != 1 || s1.Tasks[0].InstanceID != "b-2" {
		t.Fatalf("shards %+v / %+v", s0.Tasks, s1.Tasks)
	}
	merged, err := eval.MergeReportFiles(names)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Summary.Tasks != 3 || merged.Summary.Resolved != 3 || merged.Missing() != "" || merged.Tasks[0].InstanceID != "a-1" {
		t.Fatalf("merged %+v", merged)
	}
	if _, err := eval.MergeReportFiles([]string{names[0], names[0]}); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("a shard merged twice: %v", err)
	}
	mergedPath := filepath.Join(dir, "merged.json")
	if err := eval.WriteReport(merged, mergedPath, false, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// B: one step, so the model's edit is made but its turn ends at the step limit.
	o.Shard, o.Out, o.MaxSteps = "", filepath.Join(dir, "one-step.json"), 1
	rep, err := RunSuite(context.Background(), st, suite, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	eval.WriteReport(rep, o.Out, false, &bytes.Buffer{})
	var out bytes.Buffer
	c, err := eval.CompareReportFiles(mergedPath, o.Out)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"max_steps 8 → 1", "a-1", "total (3 tasks)", "Sign test", "bootstrap"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("no %q in the comparison:\n%s", want, out.String())
		}
	}
	// A run of the suite under another configuration does not resume the shard's log.
	o.Shard, o.Out = "0/2", names[0]
	if _, err := RunSuite(context.Background(), st, suite, o, nil); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Fatalf("resumed under another configuration: %v", err)
	}
}

// TestEvalTasksMaxTimeKillsTheGroup: a turn whose command would run for ten minutes (and a
// background job beside it) is stopped at --max-time, both process groups are killed before
// the task is graded, and the task is reported with end_reason max_time.
func TestEvalTasksMaxTimeKillsTheGroup(t *testing.T) {
	st, srv := runEnv(t)
	// The commands' pids inside the sandbox are not their pids here: they are found by a
	// variable in their environment.
	token := "TOFU_MAXTIME_TOKEN=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		switch toolStep(r) {
		case 0:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("j", "run_command", map[string]any{"command": "export " + token + "; echo $$ > job.pid; exec sleep 600", "background": true})}}
		case 1:
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("f", "run_command", map[string]any{"command": "export " + token + "; echo $$ > fg.pid; exec sleep 600", "timeout": 900})}}
		}
		return scripted.Reply{Text: "done"}
	})
	repo, base := taskRepo(t)
	work := t.TempDir()
	task := eval.Task{InstanceID: "slow", Repo: repo, BaseCommit: base, ProblemStatement: "wait", TestPatch: addTestPatch, FailToPass: []string{"add"}, TestCmd: "sh tests/{test}_test.sh"}
	// The bound is up once both commands run (each wrote its pid): the clock it stands for
	// could pass before a loaded machine starts the second one.
	up := eval.TasksOptions{MaxTimeUp: func(ws string) <-chan struct{} {
		c := make(chan struct{})
		exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
		go func() {
			defer close(c)
			for range 6000 {
				if exists(filepath.Join(ws, "job.pid")) && exists(filepath.Join(ws, "fg.pid")) {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		return c
	}}
	rep, err := RunTasks(context.Background(), st, []eval.Task{task}, TasksOptions{Approve: "all", Mode: "chat", MaxSteps: 5, MaxTime: 5 * time.Second, WorkDir: work, Keep: true}, up)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Tasks[0]
	if r.EndReason != "max_time" || r.Error != "" || r.Resolved || r.TestsFailed != 1 {
		dumpSession(t, st, r.Session)
		t.Fatalf("%+v", r)
	}
	for _, f := range []string{"job.pid", "fg.pid"} {
		if _, err := os.ReadFile(filepath.Join(work, "slow", f)); err != nil {
			dumpSession(t, st, r.Session)
			t.Fatalf("the command never started within --max-time: %v", err)
		}
	}
	if left := withEnv(token); len(left) > 0 {
		t.Errorf("processes %v still run after the task", left)
	}
}

// TestEvalTasksMaxTimeClock: --max-time's own clock ends a turn that would run for ten
// minutes, wherever the turn is when it fires.
func TestEvalTasksMaxTimeClock(t *testing.T) {
	st, srv := runEnv(t)
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		if toolStep(r) == 0 {
			return scripted.Reply{ToolCalls: []llm.ToolCall{tc("f", "run_command", map[string]any{"command": "exec sleep 600", "timeout": 900})}}
		}
		return scripted.Reply{Text: "done"}
	})
	repo, base := taskRepo(t)
	task := eval.Task{InstanceID: "clock", Repo: repo, BaseCommit: base, ProblemStatement: "wait", TestPatch: addTestPatch, FailToPass: []string{"add"}, TestCmd: "sh tests/{test}_test.sh"}
	rep, err := RunTasks(context.Background(), st, []eval.Task{task}, TasksOptions{Approve: "all", Mode: "chat", MaxSteps: 5, MaxTime: time.Second, WorkDir: t.TempDir()}, eval.TasksOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Tasks[0]; r.EndReason != "max_time" || r.Error != "" || r.Resolved {
		t.Fatalf("%+v", r)
	}
}
