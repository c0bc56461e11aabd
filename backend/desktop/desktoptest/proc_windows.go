package desktoptest

import (
	"os"
	"syscall"
)

// Xvfb and openbox do not run on Windows; these keep the package building there.
func groupAttr() *syscall.SysProcAttr { return nil }

func terminate(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

func terminateGroup(pid int) { terminate(pid) }
func killGroup(pid int)      { terminate(pid) }
