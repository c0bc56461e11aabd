//go:build unix && !linux

package desktoptest

import "syscall"

// groupAttr starts a program in its own process group (no parent-death signal outside Linux).
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
