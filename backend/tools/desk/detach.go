package desk

import (
	"os/exec"

	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// detached starts argv in its own session, so it outlives the turn and Tofu.
func detached(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	procgroup.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it
	return nil
}
