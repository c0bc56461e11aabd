//go:build !unix

package coding

import (
	"os"
	"syscall"
)

// signalGroup kills the process itself: without process groups, children may outlive it.
func signalGroup(pid int, _ syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

const (
	sigInterrupt = syscall.Signal(2)
	sigKill      = syscall.Signal(9)
)
