package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestSweepKillsOnlyStrays: a process whose Tofu is gone (its pid now has another start time)
// is killed; one whose Tofu lives, and one no Tofu started, are left alone.
func TestSweepKillsOnlyStrays(t *testing.T) {
	live := OwnerValue()
	if live == "" {
		t.Fatal("no start time for this process")
	}
	dead := strconv.Itoa(os.Getpid()) + ":1" // this pid, but a start time it never had
	start := func(env ...string) *exec.Cmd {
		cmd := exec.Command("sleep", "600")
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	stray := start(OwnerEnv + "=" + dead)
	owned := start(OwnerEnv + "=" + live)
	plain := start()
	waitForEnv(t, stray.Process.Pid)

	if _, err := Sweep(); err != nil {
		t.Fatal(err)
	}
	err := stray.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the stray was not killed: %v", err)
	}
	for name, c := range map[string]*exec.Cmd{"owned": owned, "plain": plain} {
		if err := c.Process.Signal(syscall.Signal(0)); err != nil {
			t.Errorf("the %s process was killed: %v", name, err)
		}
	}
}

// waitForEnv waits until pid's environment is readable (it reads empty while exec sets the
// process up), so Sweep sees what the test set.
func waitForEnv(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil && len(b) > 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the environment of the child never became readable")
}
