//go:build !windows

package browser

import (
	"os/exec"
	"syscall"
	"time"
)

// killAndWait kills Chromium's process group and waits (a few seconds at most) until the
// process is gone, so its profile is free for the next start or for clearing.
func killAndWait(pid int) {
	if pid <= 0 {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	awaitExit(pid, 5*time.Second)
}

// awaitExit waits up to d until the process is gone: after a kill, or by itself after
// Browser.close (Chromium then removes its singleton folder in /tmp, which a kill leaves behind).
func awaitExit(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for pid > 0 && time.Now().Before(deadline) && syscall.Kill(pid, 0) == nil {
		time.Sleep(10 * time.Millisecond)
	}
}

// setGroup starts cmd in a process group of its own, which killAndWait kills whole.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}
