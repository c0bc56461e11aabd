//go:build windows

package browser

import (
	"os"
	"os/exec"
	"time"
)

// killAndWait kills Chromium and waits for it to exit.
func killAndWait(pid int) {
	if p, err := os.FindProcess(pid); err == nil && pid > 0 {
		_ = p.Kill()
		_, _ = p.Wait()
	}
}

// awaitExit does not wait here: killAndWait, which follows it, waits for the exit.
func awaitExit(int, time.Duration) {}

func setGroup(*exec.Cmd) {}
