package coding

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// TestRunCommandRecordsGroupFirst: the group is described to Launched while its leader waits
// at the gate (the command has not run yet), its output is copied to the spool while it runs,
// and the copy is gone once the result exists.
func TestRunCommandRecordsGroupFirst(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	opts := testOpts
	opts.SpoolDir = t.TempDir()
	run := NewRunCommand(opts, testJobs(t, opts))
	var rec procgroup.Group
	launched := func(g procgroup.Group) error {
		if _, err := os.Stat(filepath.Join(ws, "ran")); !os.IsNotExist(err) {
			t.Errorf("the command ran before its group was recorded: %v", err)
		}
		// Recognisable at the gate (once exec has set up bash's environment, a moment after
		// the start returned).
		for i := 0; ; i++ {
			m := procgroup.Members(g)
			if len(m) == 1 && m[0] == g.PGID {
				break
			}
			if i == 6000 {
				t.Fatalf("members of %+v: %v", g, m)
			}
			sleepTick()
		}
		rec = g
		return nil
	}
	res, err := run.Run(context.Background(), tools.Call{Name: "run_command", Workspace: ws, Launched: launched,
		Arguments: json.RawMessage(`{"command":"touch ran; echo $TOFU_PROCESS; echo $$"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Start == 0 || rec.Owner != os.Getpid() || rec.OwnerStart == 0 || rec.Boot == "" || rec.Job != "" {
		t.Errorf("recorded %+v", rec)
	}
	mustContain(t, res.Text, rec.Marker+"\n", "\n"+itoa(rec.PGID)+"\n[exit 0")
	if !strings.HasPrefix(rec.Output, opts.SpoolDir) {
		t.Errorf("output copy at %q", rec.Output)
	}
	if _, err := os.Stat(rec.Output); !os.IsNotExist(err) {
		t.Errorf("the output copy outlived the result: %v", err)
	}
}

// TestRunCommandSpool: while a command runs, what it printed is in the spool file.
func TestRunCommandSpool(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	opts := testOpts
	opts.SpoolDir = t.TempDir()
	run := NewRunCommand(opts, testJobs(t, opts))
	groups := make(chan procgroup.Group, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run.Run(ctx, tools.Call{Name: "run_command", Workspace: ws,
			Launched:  func(g procgroup.Group) error { groups <- g; return nil },
			Arguments: json.RawMessage(`{"command":"echo half way; echo $$ > leader.pid; sleep 1000"}`)})
		done <- err
	}()
	g := <-groups
	waitPID(t, filepath.Join(ws, "leader.pid"))
	for i := 0; ; i++ { // the copy is written by the reader goroutine: wait for it
		if b, _ := os.ReadFile(g.Output); string(b) == "half way\n" {
			break
		}
		if i == 6000 {
			t.Fatal("the output never reached the spool")
		}
		sleepTick()
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// TestRunCommandNotRecordedNotRun: when the group cannot be recorded, the command never runs.
func TestRunCommandNotRecordedNotRun(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	opts := testOpts
	opts.SpoolDir = t.TempDir()
	run := NewRunCommand(opts, testJobs(t, opts))
	var pgid int
	_, err := run.Run(context.Background(), tools.Call{Name: "run_command", Workspace: ws,
		Launched:  func(g procgroup.Group) error { pgid = g.PGID; return errors.New("disk full") },
		Arguments: json.RawMessage(`{"command":"touch ran"}`)})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); !os.IsNotExist(err) {
		t.Fatalf("the command ran: %v", err)
	}
	waitGone(t, pgid)
	if ents, _ := os.ReadDir(opts.SpoolDir); len(ents) != 0 {
		t.Fatalf("output copies left: %v", ents)
	}
}

// TestCommandsDieWithTofu: a process that runs a command and is SIGKILLed takes the command
// along (the parent-death signal), with nobody left to stop it.
func TestCommandsDieWithTofu(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	helper := exec.Command(os.Args[0], "-test.run=^TestProcHelper$")
	// Killed, it cannot remove its temporary files: they go in a folder the test removes.
	helper.Env = append(os.Environ(), "TOFU_PROC_HELPER="+ws, "TMPDIR="+t.TempDir())
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitPID(t, filepath.Join(ws, "job.pid"))
	helper.Process.Kill()
	helper.Wait()
	waitGone(t, pid)
}

// TestProcHelper is not a test: TestCommandsDieWithTofu runs the test binary as a Tofu that
// starts a background command and waits to be killed.
func TestProcHelper(t *testing.T) {
	ws := os.Getenv("TOFU_PROC_HELPER")
	if ws == "" {
		t.Skip("helper process only")
	}
	jobs := NewJobs(testOpts)
	res := call(t, NewRunCommand(testOpts, jobs), ws, `{"command":"echo $$ > job.pid; exec sleep 1000","background":true}`)
	if res.IsError {
		t.Fatal(res.Text)
	}
	select {} // until killed
}
