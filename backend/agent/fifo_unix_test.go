//go:build unix

package agent

import "syscall"

// mkfifo makes a named pipe at p (opening it to read would block until a writer comes).
func mkfifo(p string) { _ = syscall.Mkfifo(p, 0o644) }
