package desktoptest

import "syscall"

// groupAttr starts a program in its own process group, killed if the test process dies first.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
