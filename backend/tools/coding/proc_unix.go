//go:build unix

package coding

import (
	"os/exec"
	"syscall"
)

// setGroup makes the command the leader of a new process group, so a signal reaches every
// process it started.
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to the process group led by pid; a group already gone is not an error.
func signalGroup(pid int, sig syscall.Signal) {
	_ = syscall.Kill(-pid, sig)
}

const (
	sigInterrupt = syscall.SIGINT
	sigKill      = syscall.SIGKILL
)
