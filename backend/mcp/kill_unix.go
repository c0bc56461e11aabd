//go:build unix

package mcp

import "syscall"

// killGroup kills the process group led by pid.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
