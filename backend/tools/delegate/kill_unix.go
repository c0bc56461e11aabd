//go:build unix

package delegate

import "syscall"

// killGroup kills the agent's process group (its own children too).
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
