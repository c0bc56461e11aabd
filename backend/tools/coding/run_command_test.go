package coding

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
)

// testOpts make stopping quick; nothing below asserts on time.
var testOpts = Options{Ripgrep: "-", KillGrace: 200 * time.Millisecond}

func TestRunCommand(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{"sub/f.txt": "x\n"})
	tb := NewToolbox(testOpts)
	defer tb.Close()
	run := NewRunCommand(testOpts, tb.Jobs())

	res := call(t, run, ws, `{"command":"echo out; echo err >&2; cat; exit 3"}`)
	m := res.Meta.(RunMeta)
	if !strings.HasPrefix(res.Text, "out\nerr\n[exit 3 · ") || res.IsError || m.ExitCode != 3 || m.Dir != ws {
		t.Errorf("got %q %+v", res.Text, m)
	}
	res = call(t, run, ws, `{"command":"pwd; ls","dir":"sub"}`)
	mustContain(t, res.Text, filepath.Join(ws, "sub")+"\nf.txt\n[exit 0")
	res = call(t, run, ws, `{"command":"printf '\\033[31mred\\033[0m'"}`)
	mustContain(t, res.Text, "red\n[exit 0")
	for args, want := range map[string]string{
		`{"command":"ls","dir":"nope"}`: "dir nope is not a directory",
		`{"command":"  "}`:              "command is empty",
		`{"cmd":"ls","timeout":"soon"}`: "timeout: expected integer, got string \"soon\"",
	} {
		if res := call(t, run, ws, args); !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%s: %q", args, res.Text)
		}
	}
}

func TestRunCommandOutputCap(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	opts := testOpts
	opts.OutputCap = 3000
	res := call(t, NewRunCommand(opts, testJobs(t, opts)), ws, `{"command":"seq 1 20000"}`)
	m := res.Meta.(RunMeta)
	mustContain(t, res.Text, "1\n2\n3\n", "bytes of output omitted …]", "19999\n20000\n[exit 0")
	if !m.Truncated || m.OutputBytes != 108894 || len(res.Text) > 3200 {
		t.Errorf("meta %+v, %d chars", m, len(res.Text))
	}
}

func TestRunCommandTimeout(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	opts := testOpts
	opts.DefaultTimeout, opts.MaxTimeout = 300*time.Millisecond, time.Hour
	// No output is expected before the timeout: on a loaded machine bash may not have printed
	// anything in 300 ms. (Output kept across a stop is checked by the cancel test, which
	// stops only once the command has printed.)
	res := call(t, NewRunCommand(opts, testJobs(t, opts)), ws, `{"command":"sleep 1000"}`)
	m := res.Meta.(RunMeta)
	mustContain(t, res.Text, "[timed out after 300ms; the command and its children were stopped (stopped with SIG")
	if !res.IsError || !m.TimedOut || m.ExitCode != -1 {
		t.Errorf("%q %+v", res.Text, m)
	}
	opts.MaxTimeout = 300 * time.Millisecond
	res = call(t, NewRunCommand(opts, testJobs(t, opts)), ws, `{"command":"sleep 1000","timeout":5}`)
	mustContain(t, res.Text, "[timeout lowered to the maximum, 300ms]", "[timed out after 300ms")
}

// TestRunCommandCancelKillsGroup: interrupting a command stops every process it started,
// including a background child that ignores SIGINT (bash starts `&` children that way).
func TestRunCommandCancelKillsGroup(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	run := NewRunCommand(testOpts, testJobs(t, testOpts))
	ctx, cancel := context.WithCancel(context.Background())
	type out struct {
		res tools.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		r, err := run.Run(ctx, tools.Call{Name: "run_command", Workspace: ws,
			Arguments: json.RawMessage(`{"command":"echo waiting; sleep 1000 & echo $! > child.pid; wait"}`)})
		done <- out{r, err}
	}()
	pid := waitPID(t, filepath.Join(ws, "child.pid"))
	cancel()
	o := <-done
	if !errors.Is(o.err, context.Canceled) || !o.res.Meta.(RunMeta).Canceled {
		t.Errorf("err %v meta %+v", o.err, o.res.Meta)
	}
	mustContain(t, o.res.Text, "waiting\n[stopped with SIG")
	waitGone(t, pid)
}

// TestRunCommandReapsChildren: a foreground command's forgotten `&` child does not outlive it
// (and does not hold the call open).
func TestRunCommandReapsChildren(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	res := call(t, NewRunCommand(testOpts, testJobs(t, testOpts)), ws, `{"command":"sleep 1000 & echo $! > child.pid"}`)
	mustContain(t, res.Text, "[exit 0")
	waitGone(t, waitPID(t, filepath.Join(ws, "child.pid")))
}

func TestJobs(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	tb := NewToolbox(testOpts)
	defer tb.Close()
	run, out, kill := NewRunCommand(testOpts, tb.Jobs()), NewJobOutput(tb.Jobs()), NewJobKill(tb.Jobs())

	res := call(t, run, ws, `{"command":"echo one; echo $$ > job.pid; sleep 1000","background":true}`)
	if res.Text != `started job j1; read its output with job_output {"id":"j1"}, stop it with job_kill` || res.Meta.(RunMeta).JobID != "j1" {
		t.Fatalf("start: %q", res.Text)
	}
	pid := waitPID(t, filepath.Join(ws, "job.pid"))
	for i := 0; ; i++ { // poll until the first line has been read from the pipe (a hang fails after a minute)
		res = call(t, out, ws, `{"id":"j1"}`)
		// The header line echoes the command (`echo one`): wait for the output line itself.
		if strings.Contains(res.Text, "\none\n") {
			break
		}
		if i == 6000 {
			t.Fatalf("no output: %q", res.Text)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mustContain(t, res.Text, "job j1 `echo one; echo $$ > job.pid; sleep 1000`: running for ", "\none\n")
	if !res.Meta.(JobMeta).Running {
		t.Error("not running")
	}
	res = call(t, out, ws, `{"id":"1"}`) // "1" for "j1"; nothing new since the last look
	mustContain(t, res.Text, "[no new output]")

	res = call(t, out, ws, `{}`)
	mustContain(t, res.Text, "jobs:\nj1 `echo one; echo $$ > job.pid; sleep 1000` (running for ")

	res = call(t, kill, ws, `{"id":"j1"}`)
	mustContain(t, res.Text, "job j1 `echo one; echo $$ > job.pid; sleep 1000`: stopped with SIG")
	if res.Meta.(JobMeta).Running {
		t.Error("still running after job_kill")
	}
	waitGone(t, pid)

	res = call(t, run, ws, `{"command":"echo two","background":true}`)
	res = call(t, out, ws, `{"id":"j2","wait":600}`)
	mustContain(t, res.Text, "job j2 `echo two`: exit 0 · ", "\ntwo\n")

	res = call(t, kill, ws, `{"id":"j9"}`)
	if !res.IsError || !strings.HasPrefix(res.Text, "no job \"j9\"; jobs:\nj1 ") {
		t.Errorf("unknown job: %q", res.Text)
	}
}

// waitPID polls for a pid file the command writes (no timing is asserted; a hung test fails
// after a minute).
func waitPID(t *testing.T, path string) int {
	t.Helper()
	for i := 0; i < 6000; i++ {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never written", path)
	return 0
}

// waitGone polls until pid has exited (a zombie awaiting its reaper counts as gone).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 6000; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("process %d still running", pid)
}

// TestPipeKeepsTheFailingStatus: `pytest … | tail` showed "2 failed" then [exit 0], tail's
// status. Commands run with pipefail, in the foreground and in the sandbox alike.
func TestPipeKeepsTheFailingStatus(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	run := NewRunCommand(testOpts, testJobs(t, testOpts))
	res := call(t, run, ws, `{"command":"(echo '2 failed, 47 passed'; exit 1) | tail -20"}`)
	if m := res.Meta.(RunMeta); m.ExitCode != 1 || !strings.Contains(res.Text, "2 failed, 47 passed\n[exit 1") {
		t.Errorf("pipe with a failing first stage: %q %+v", res.Text, m)
	}
	res = call(t, run, ws, `{"command":"(exit 2) | (exit 3) | cat"}`)
	if m := res.Meta.(RunMeta); m.ExitCode != 3 {
		t.Errorf("the last failing stage's status: %q %+v", res.Text, m)
	}
	if res := call(t, run, ws, `{"command":"echo ok | cat"}`); !strings.Contains(res.Text, "ok\n[exit 0") {
		t.Errorf("a pipe that succeeds: %q", res.Text)
	}
}

// TestRunCommandKeepsTheWholeOutput: past the cap the model sees the head and the tail, and
// the result's Full holds every byte for read_result (spilled to a file past 256 KB); past
// FullOutputMax the middle is dropped and both the copy and its status say so.
func TestRunCommandKeepsTheWholeOutput(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	opts := testOpts
	opts.OutputCap = 3000
	opts.SpoolDir = t.TempDir()
	res := call(t, NewRunCommand(opts, testJobs(t, opts)), ws, `{"command":"seq 1 60000; exit 2"}`)
	var want strings.Builder
	for i := 1; i <= 60000; i++ {
		want.WriteString(strconv.Itoa(i) + "\n")
	}
	if !strings.HasPrefix(res.Full, want.String()+"[exit 2 · ") || len(res.Text) > 3200 {
		t.Fatalf("Full: %d bytes, %.80q … %.80q", len(res.Full), res.Full, res.Full[max(0, len(res.Full)-80):])
	}
	if small := call(t, NewRunCommand(opts, testJobs(t, opts)), ws, `{"command":"seq 1 10"}`); small.Full != "" {
		t.Errorf("an output within the cap has a Full: %q", small.Full)
	}
	if entries, _ := os.ReadDir(opts.SpoolDir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}

	opts.FullOutputMax = 64 << 10
	res = call(t, NewRunCommand(opts, testJobs(t, opts)), ws, `{"command":"seq 1 60000"}`)
	mustContain(t, res.Full, "1\n2\n3\n", "bytes of output not stored: the stored copy is bounded at 64 KB …]",
		"59999\n60000\n[exit 0 · ", "[the stored output is cut: ")
	if len(res.Full) > 66<<10 {
		t.Errorf("the bounded copy is %d bytes", len(res.Full))
	}
}
