package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// toolStep counts the tool results in a request: which step of a script the model is at.
func toolStep(r llm.Request) int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool {
			n++
		}
	}
	return n
}

// turnStep counts the tool results since the last user message: which step of its turn the
// model is at.
func turnStep(r llm.Request) int {
	n := 0
	for _, m := range r.Messages {
		switch m.Role {
		case llm.RoleUser:
			n = 0
		case llm.RoleTool:
			n++
		}
	}
	return n
}

func tc(id, name string, args any) llm.ToolCall {
	b, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Name: name, Arguments: b}
}

// script answers step i of a conversation with steps[i], then with done.
func script(srv *scripted.Server, done string, steps ...[]llm.ToolCall) {
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		if i := toolStep(r); i < len(steps) {
			return scripted.Reply{ToolCalls: steps[i]}
		}
		return scripted.Reply{Text: done}
	})
}

// repo makes a small project with two bugs and a test script that finds them.
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"lib/add.sh": "add() { echo $(( $1 - $2 )); }\n",
		"lib/mul.sh": "mul() { echo $(( $1 + $2 )); }\n",
		"test.sh": ". lib/add.sh; . lib/mul.sh\n" +
			"[ \"$(add 2 3)\" = 5 ] || { echo 'FAIL add'; exit 1; }\n" +
			"[ \"$(mul 2 3)\" = 6 ] || { echo 'FAIL mul'; exit 1; }\necho 'all tests pass'\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	exec.Command("git", "init", "-q", dir).Run()
	return dir
}

func runEnv(t *testing.T) (*store.Store, *scripted.Server) {
	t.Helper()
	srv := scripted.New(t, scripted.DemoModel())
	isolate(t, srv.URL)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, srv
}

func eventTypes(t *testing.T, st *store.Store, session string) string {
	t.Helper()
	evs, err := st.Events(session)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, ev := range evs {
		s = append(s, string(ev.Type))
	}
	return strings.Join(s, ",")
}

func onlySession(t *testing.T, st *store.Store) string {
	t.Helper()
	list, _ := st.Sessions()
	if len(list) != 1 {
		t.Fatalf("%d sessions", len(list))
	}
	return list[0].ID
}

// startRun starts a real `tofu run args…` (this test binary as tofu) with its data in dataDir;
// it dies with the test.
func startRun(t *testing.T, dataDir string, args ...string) *exec.Cmd {
	t.Helper()
	// Killed, it leaves its temporary files in a folder the test removes, not in /tmp; the test
	// shares it (os.Getenv("TMPDIR")) to see its commands' output copies (waitOutputCopy).
	t.Setenv("TMPDIR", t.TempDir())
	cmd := exec.Command(os.Args[0], "-test.run=TestCLIHelper")
	cmd.Env = append(os.Environ(), "TOFU_CLI_HELPER=1", "XDG_DATA_HOME="+dataDir,
		"TOFU_CLI_ARGS="+strings.Join(append([]string{"run"}, args...), "\x1f"))
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// killAndReopen SIGKILLs the run and opens the store it left in dataDir, closed with the test.
func killAndReopen(t *testing.T, cmd *exec.Cmd, dataDir string) *store.Store {
	t.Helper()
	cmd.Process.Kill()
	cmd.Wait()
	st, err := store.Open(filepath.Join(dataDir, "tofu"))
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestRunCodingTask(t *testing.T) {
	st, srv := runEnv(t)
	ws := repo(t)
	script(srv, "Fixed add and mul; the tests pass.",
		[]llm.ToolCall{tc("g", "grep", map[string]any{"searches": []map[string]any{{"pattern": `add\(\)`}, {"pattern": `mul\(\)`}}})},
		[]llm.ToolCall{tc("r", "read_files", map[string]any{"reads": []map[string]any{{"path": "lib/add.sh"}, {"path": "lib/mul.sh"}}})},
		[]llm.ToolCall{tc("e", "edit_files", map[string]any{"edits": []map[string]any{
			{"path": "lib/add.sh", "old_string": "$1 - $2", "new_string": "$1 + $2"},
			{"path": "lib/mul.sh", "old_string": "$1 + $2", "new_string": "$1 * $2"},
		}})},
		[]llm.ToolCall{tc("t", "run_command", map[string]any{"command": "sh test.sh"})},
	)
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "the tests fail: fix them", Workspace: ws, Approve: "all", MaxSteps: 10}, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if end.Reason != "done" || end.Steps != 5 {
		t.Fatalf("end = %+v\n%s", end, errOut.String())
	}
	if !strings.Contains(out.String(), "Fixed add and mul") || !strings.Contains(errOut.String(), "→ edit_files") {
		t.Fatalf("terminal output:\n%s\n%s", out.String(), errOut.String())
	}
	check := exec.Command("sh", "test.sh")
	check.Dir = ws
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("the fix did not land: %s", b)
	} else if string(b) != "all tests pass\n" {
		t.Fatalf("test.sh: %q", b)
	}
	session := onlySession(t, st)
	evs, _ := st.Events(session)
	var results []store.ToolResult
	for _, ev := range evs {
		if ev.Type == store.EventToolResult {
			var r store.ToolResult
			ev.Decode(&r)
			results = append(results, r)
		}
	}
	if len(results) != 4 {
		t.Fatalf("events: %s", eventTypes(t, st, session))
	}
	var tokIn, tokOut, calls int
	for _, ev := range evs {
		var u llm.Usage
		if ev.Type == store.EventUsage && ev.Decode(&u) == nil {
			calls++
			tokIn += u.LocalInputTokens
			tokOut += u.LocalOutputTokens
		}
	}
	t.Logf("scripted coding task: %d steps, %d model calls, %d input + %d output o200k tokens", end.Steps, calls, tokIn, tokOut)
	for _, r := range results {
		if r.IsError {
			t.Fatalf("%s failed: %s", r.Name, r.Text)
		}
	}
	if !strings.Contains(results[1].Text, "$1 - $2") || !strings.Contains(results[3].Text, "all tests pass") {
		t.Fatalf("read/run results: %q / %q", results[1].Text, results[3].Text)
	}
	// Writes and commands asked, and --approve=all approved them (recorded by the policy's verdict).
	info, _ := st.Session(session)
	if info.Workspace != ws {
		t.Fatalf("workspace = %q", info.Workspace)
	}
	// tofu trace verify: every request of the task rebuilds from the log (docs/TRACE.md).
	ans, err := forward.AnswerDesk(st, forward.DeskRequest{Op: forward.DeskTraceVerify, Session: session}, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	var verify bytes.Buffer
	if err := printVerify(&verify, *ans.Trace); err != nil || !strings.Contains(verify.String(), "5 model calls verified") ||
		!strings.Contains(verify.String(), "rebuilt from the log and hashed: calls 1–5") {
		t.Fatalf("tofu trace verify: %v\n%s", err, verify.String())
	}
}

// TestRunCodingTaskAutonomous is the coding task in autonomous mode: the planner plans, the
// worker fixes one bug, the critic runs the tests, sees the other one fail and sends the worker
// back; the second review passes. Every phase is in the --json output.
func TestRunCodingTaskAutonomous(t *testing.T) {
	st, srv := runEnv(t)
	ws := repo(t)
	srv.DefaultFunc(func(r llm.Request) scripted.Reply {
		system := r.Messages[0].Content
		// The step within the phase: tool results after the phase's last user message.
		step, brief := 0, ""
		for _, m := range r.Messages {
			switch m.Role {
			case llm.RoleUser:
				step, brief = 0, m.Content
			case llm.RoleTool:
				step++
			}
		}
		switch {
		case strings.Contains(system, "You are the planner"):
			return scripted.Reply{Text: "1. Fix add in lib/add.sh\n2. Fix mul in lib/mul.sh\n3. Run sh test.sh"}
		case strings.Contains(system, "You are the critic"):
			if step == 0 {
				return scripted.Reply{ToolCalls: []llm.ToolCall{tc("t", "run_command", map[string]any{"command": "sh test.sh"})}}
			}
			if out := r.Messages[len(r.Messages)-1].Content; strings.Contains(out, "FAIL") {
				return scripted.Reply{Text: "add is fixed.\n- [ ] sh test.sh: " + firstLine(out) + "\nVERDICT: CONTINUE_WORKER"}
			}
			return scripted.Reply{Text: "Ran sh test.sh: all tests pass.\nVERDICT: STOP"}
		case strings.HasPrefix(brief, "Plan:"):
			steps := [][]llm.ToolCall{
				{tc("g", "grep", map[string]any{"searches": []map[string]any{{"pattern": `add\(\)`}}})},
				{tc("e", "edit_files", map[string]any{"edits": []map[string]any{{"path": "lib/add.sh", "old_string": "$1 - $2", "new_string": "$1 + $2"}}})},
			}
			if step < len(steps) {
				return scripted.Reply{ToolCalls: steps[step]}
			}
			return scripted.Reply{Text: "Fixed add."}
		case strings.HasPrefix(brief, "A reviewer"):
			if step == 0 {
				return scripted.Reply{ToolCalls: []llm.ToolCall{tc("e2", "edit_files", map[string]any{"edits": []map[string]any{{"path": "lib/mul.sh", "old_string": "$1 + $2", "new_string": "$1 * $2"}}})}}
			}
			return scripted.Reply{Text: "Fixed mul too."}
		}
		return scripted.Reply{Text: "unexpected request"}
	})
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "the tests fail: fix them", Workspace: ws, Approve: "all", Mode: "autonomous", JSON: true}, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	// planner 1, worker 3 + 2, critic 2 + 2.
	if end.Reason != "done" || end.Steps != 10 {
		t.Fatalf("end = %+v\n%s", end, errOut.String())
	}
	if b, err := exec.Command("sh", "-c", "cd "+ws+" && sh test.sh").CombinedOutput(); err != nil || string(b) != "all tests pass\n" {
		t.Fatalf("test.sh: %q %v", b, err)
	}
	var phases []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var ev store.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		if ev.Type == store.EventPhase {
			var p store.Phase
			ev.Decode(&p)
			phases = append(phases, fmt.Sprintf("%s%d:%s%s", p.Role, p.Iteration, p.State, p.Verdict))
		}
	}
	want := "planner1:start planner1:end worker1:start worker1:end critic1:start critic1:endCONTINUE_WORKER worker2:start worker2:end critic2:start critic2:endSTOP"
	if got := strings.Join(phases, " "); got != want {
		t.Fatalf("phases:\n got %s\nwant %s", got, want)
	}
	session := onlySession(t, st)
	if info, _ := st.Session(session); info.Mode != "autonomous" {
		t.Fatalf("mode = %q", info.Mode)
	}
	// The feedback that sent the worker back quotes the failing test.
	evs, _ := st.Events(session)
	for _, ev := range evs {
		var p store.Phase
		if ev.Type == store.EventPhase && ev.Decode(&p) == nil && p.Role == "worker" && p.Iteration == 2 && p.State == "start" {
			if !strings.Contains(p.Brief, "FAIL mul") {
				t.Fatalf("worker 2 brief: %q", p.Brief)
			}
		}
	}
	// A continued session keeps its mode; an unknown mode is refused.
	if _, err := Run(context.Background(), st, RunOptions{Task: "x", Workspace: ws, Mode: "turbo"}, &out, &errOut); err == nil {
		t.Fatal("--mode turbo accepted")
	}
}

func TestPhaseNote(t *testing.T) {
	for _, c := range []struct {
		p    store.Phase
		want string
	}{
		{store.Phase{Role: "planner", Iteration: 1, State: "start"}, "── planner ──"},
		{store.Phase{Role: "planner", Iteration: 3, State: "start"}, "── planner (replan) ──"},
		{store.Phase{Role: "worker", Iteration: 2, State: "start"}, "── worker · round 2 ──"},
		{store.Phase{Role: "worker", Iteration: 2, State: "end"}, ""},
		{store.Phase{Role: "critic", Iteration: 2, State: "end", Verdict: "CONTINUE_WORKER", Claimed: "STOP", Gate: "the feedback still lists failures: x", Feedback: "x fails\nmore"},
			"── critic: CONTINUE_WORKER (STOP not accepted: the feedback still lists failures: x) — x fails ──"},
	} {
		if got := phaseNote(c.p); got != c.want {
			t.Errorf("%+v: %q", c.p, got)
		}
	}
}

func TestRunSafeDeniesWhatWouldAsk(t *testing.T) {
	st, srv := runEnv(t)
	ws := repo(t)
	script(srv, "I could not edit.",
		[]llm.ToolCall{tc("e", "edit_files", map[string]any{"edits": []map[string]any{{"path": "lib/add.sh", "old_string": "-", "new_string": "+"}}})},
	)
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st, RunOptions{Task: "fix", Workspace: ws, Approve: "safe"}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("end %+v, %v", end, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "lib/add.sh")); !strings.Contains(string(b), "$1 - $2") {
		t.Fatal("--approve=safe let an edit through")
	}
	if got := eventTypes(t, st, onlySession(t, st)); !strings.Contains(got, "approval,tool_result") {
		t.Fatalf("events: %s", got)
	}
}

func TestRunInterruptThenContinue(t *testing.T) {
	st, srv := runEnv(t)
	ws := repo(t)
	script(srv, "Stopped as asked.",
		[]llm.ToolCall{tc("s", "run_command", map[string]any{"command": "touch started && sleep 20 && echo finished"})},
	)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
				cancel(agent.ErrStoppedByUser)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var out, errOut bytes.Buffer
	end, err := Run(ctx, st, RunOptions{Task: "run it", Workspace: ws, Approve: "all"}, &out, &errOut)
	if err != nil || end.Reason != "interrupted" {
		t.Fatalf("end %+v, %v", end, err)
	}
	session := onlySession(t, st)
	if got := eventTypes(t, st, session); got != "user,environment,assistant,usage,model_call,tool_start,process,tool_result,interrupted,turn_end" {
		t.Fatalf("events: %s", got)
	}
	if endError(end).(*exitError).code != 130 {
		t.Fatal("an interrupted run does not exit 130")
	}
	// Continue: the stopped command is not run again; the model reads what it produced.
	end, err = Run(context.Background(), st, RunOptions{Continue: session, Approve: "all"}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("continue: %+v, %v", end, err)
	}
	chats := srv.Chats()
	last := chats[len(chats)-1].Request.Messages
	if tool := last[len(last)-1]; tool.Role != llm.RoleTool || !strings.Contains(tool.Content, "interrupted") || strings.Contains(tool.Content, "finished") {
		t.Fatalf("the model read %+v", tool)
	}
}

// waitOutputCopy waits until a command's output copy (tofu-output-* in dir, backend/tools/coding's
// spool) holds text.
func waitOutputCopy(t *testing.T, dir, text string) {
	t.Helper()
	for range 6000 {
		copies, _ := filepath.Glob(filepath.Join(dir, "tofu-output-*"))
		for _, c := range copies {
			if b, _ := os.ReadFile(c); strings.Contains(string(b), text) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond) // polling a file, not waiting for time
	}
	t.Fatalf("no output copy in %s holds %q", dir, text)
}

// TestRunSurvivesSIGKILL kills a real `tofu run` process in the middle of a command and
// continues the session: everything up to the kill is in the log, the command's process
// group (which outlived the kill) is killed, and the command is not run again: the model reads
// that it may have run partly, with what it printed.
func TestRunSurvivesSIGKILL(t *testing.T) {
	st, srv := runEnv(t)
	dataDir := t.TempDir()
	st.Close()
	ws := repo(t)
	script(srv, "Resumed and done.",
		[]llm.ToolCall{tc("a", "read_files", map[string]any{"reads": []map[string]any{{"path": "test.sh"}}})},
		[]llm.ToolCall{tc("b", "run_command", map[string]any{"command": "export TOFU_SURVIVE=" + filepath.Base(ws) + "; echo half way; echo run >> runs; sleep 1000 & echo started > child.started; wait"})},
	)
	cmd := startRun(t, dataDir, "--cwd", ws, "--approve", "all", "run the tests")
	// The child's pid inside the sandbox is not its pid here: it is found by its environment.
	waitFile(t, filepath.Join(ws, "child.started"))
	// The shell printed before it made the file, but Tofu copies the output as it reads it: a
	// kill before the copy would leave nothing to report (seen once under load).
	waitOutputCopy(t, os.Getenv("TMPDIR"), "half way")
	token := "TOFU_SURVIVE=" + filepath.Base(ws)
	st2 := killAndReopen(t, cmd, dataDir)
	session := onlySession(t, st2)
	if got := eventTypes(t, st2, session); got != "user,environment,assistant,usage,model_call,tool_result,assistant,usage,model_call,tool_start,process" {
		t.Fatalf("events after kill: %s", got)
	}
	var out, errOut bytes.Buffer
	end, err := Run(context.Background(), st2, RunOptions{Continue: session, Approve: "all"}, &out, &errOut)
	if err != nil || end.Reason != "done" {
		t.Fatalf("continue: %+v, %v\n%s", end, err, errOut.String())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "runs")); string(b) != "run\n" {
		t.Fatalf("the command ran %q", b)
	}
	if left := withEnv(token); len(left) > 0 {
		t.Fatalf("the command's child outlived the continue: %v", left)
	}
	evs, _ := st2.Events(session)
	reads, runs := 0, 0
	for _, ev := range evs {
		var r store.ToolResult
		if ev.Type == store.EventToolResult && ev.Decode(&r) == nil {
			switch r.Name {
			case "read_files":
				reads++
			case "run_command":
				runs++
				if !r.Unfinished || !strings.Contains(r.Text, "may have run partly") || !strings.Contains(r.Text, "half way") {
					t.Fatalf("the unfinished command's answer: %q", r.Text)
				}
			}
		}
	}
	if reads != 1 || runs != 1 || !strings.Contains(out.String(), "Resumed and done.") {
		t.Fatalf("reads %d, runs %d, out %q", reads, runs, out.String())
	}
}

// alive reports whether pid runs (a zombie awaiting its reaper is dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// TestCLIHelper is not a test: TestRunSurvivesSIGKILL runs the test binary as `tofu`.
func TestCLIHelper(t *testing.T) {
	if os.Getenv("TOFU_CLI_HELPER") == "" {
		t.Skip("helper process only")
	}
	os.Args = append([]string{"tofu"}, strings.Split(os.Getenv("TOFU_CLI_ARGS"), "\x1f")...)
	// Not t.TempDir: os.Exit skips the test's cleanups, and the folder would stay in /tmp.
	dir, err := os.MkdirTemp("", "tofu-cli-helper-*")
	if err != nil {
		t.Fatal(err)
	}
	code := Execute(os.DirFS(dir))
	os.RemoveAll(dir)
	os.Exit(code)
}
