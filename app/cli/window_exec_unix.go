//go:build unix

package cli

import (
	"fmt"
	"syscall"
)

// execWindow replaces this process with the window program: the same pid, so signals sent to
// `tofu` reach the window, and its exit status is `tofu`'s. It returns only on failure.
func execWindow(bin string, env []string) error {
	if err := syscall.Exec(bin, []string{bin}, env); err != nil {
		return fmt.Errorf("start the window program %s: %w", bin, err)
	}
	return nil
}
