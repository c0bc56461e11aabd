//go:build unix

package manage

import (
	"os"
	"syscall"
)

// stopGroup signals the process group p leads: SIGTERM (Ollama unloads its runners), or
// SIGKILL when kill is set.
func stopGroup(p *os.Process, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	syscall.Kill(-p.Pid, sig)
}
