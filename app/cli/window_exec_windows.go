package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// execWindow runs the window program as a child (Windows has no exec) with this process's
// console, and exits with its status. Ctrl+C reaches every process of the console: `tofu`
// ignores it and the window decides.
func execWindow(bin string, env []string) error {
	signal.Ignore(os.Interrupt)
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return &exitError{code: exit.ExitCode()} // the window said why itself
	}
	if err != nil {
		return fmt.Errorf("start the window program %s: %w", bin, err)
	}
	return nil
}
