package cli

import (
	"os/exec"
	"syscall"
)

// dieWithTest kills a helper process when the test binary dies (a test that times out runs
// no cleanups, and a `tofu serve` left behind would run on).
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
