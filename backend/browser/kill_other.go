//go:build windows

package browser

import "os"

// killAndWait kills Chromium and waits for it to exit.
func killAndWait(pid int) {
	if p, err := os.FindProcess(pid); err == nil && pid > 0 {
		_ = p.Kill()
		_, _ = p.Wait()
	}
}
