//go:build unix

package coding

import "syscall"

// signalGroup sends sig to the process group led by pid; a group already gone is not an error.
func signalGroup(pid int, sig syscall.Signal) {
	_ = syscall.Kill(-pid, sig)
}

const (
	sigInterrupt = syscall.SIGINT
	sigKill      = syscall.SIGKILL
)
