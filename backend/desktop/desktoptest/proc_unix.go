//go:build unix

package desktoptest

import "syscall"

// terminate asks one process to stop.
func terminate(pid int) { syscall.Kill(pid, syscall.SIGTERM) }

// terminateGroup asks a process group (led by pid) to stop.
func terminateGroup(pid int) { syscall.Kill(-pid, syscall.SIGTERM) }

// killGroup stops a process group that did not stop when asked.
func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }
