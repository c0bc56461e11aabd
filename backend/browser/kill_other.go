//go:build windows

package browser

import (
	"os"
	"os/exec"
)

// killAndWait kills Chromium and waits for it to exit.
func killAndWait(pid int) {
	if p, err := os.FindProcess(pid); err == nil && pid > 0 {
		_ = p.Kill()
		_, _ = p.Wait()
	}
}

func setGroup(*exec.Cmd) {}
