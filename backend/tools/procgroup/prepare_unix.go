//go:build unix && !linux

package procgroup

import (
	"os/exec"
	"syscall"
)

// prepare makes cmd the leader of a new process group.
func prepare(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
