//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Detach makes cmd start in a session of its own, so it outlives the terminal and the process
// that started it (a hang-up of either does not reach it).
func Detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
