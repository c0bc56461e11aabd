//go:build unix

package eval

import (
	"os/exec"
	"syscall"
)

// ownGroup starts c in a process group of its own, killed whole when c is cancelled.
func ownGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}
