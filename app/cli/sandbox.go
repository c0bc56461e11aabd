package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/session"
)

// newSandboxCmd is `tofu sandbox`: whether this machine can confine the agent's commands, and
// a command run inside the very boundary they get (to try what a command may reach, and to
// time what the boundary costs).
func newSandboxCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "sandbox", Short: "The sandbox the agent's commands run in: its state, or a command run inside it"}
	status := &cobra.Command{
		Use:   "status",
		Short: "Say whether commands run in a sandbox here, with what, or why not",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := settings()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			st := sandbox.Detect()
			switch _, why := session.CommandBoundary(cfg); {
			case cfg.Commands == config.CommandsUnconfined:
				fmt.Fprintln(out, "commands run unconfined: the settings say so (\"commands\": \"unconfined\"); only the approval policy stands between them and this machine")
			case st.Available:
				fmt.Fprintf(out, "commands run in the sandbox (%s): the workspace and a /tmp of the session's writable, the rest read-only, secrets hidden, network only through Tofu's proxy\n", st.Mechanism)
			default:
				fmt.Fprintf(out, "no sandbox: %s\nevery command asks before it runs\n", why)
			}
			return nil
		},
	}
	var cwd string
	var unconfined bool
	run := &cobra.Command{
		Use:   "run [--cwd DIR] [--unconfined] -- COMMAND [ARG...]",
		Short: "Run a command inside the boundary the agent's commands get, with DIR as the workspace",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := filepath.Abs(cwd)
			if err != nil {
				return err
			}
			c := exec.Command(args[0], args[1:]...)
			c.Dir, c.Stdin, c.Stdout, c.Stderr = ws, os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if path, err := exec.LookPath(args[0]); err == nil {
				c.Path = path
			}
			if !unconfined {
				cfg, err := settings()
				if err != nil {
					return err
				}
				box := session.CommandSandbox(cfg)
				if box == nil {
					_, why := session.CommandBoundary(cfg)
					return fmt.Errorf("no sandbox: %s (--unconfined runs the command without one)", why)
				}
				var temp sandbox.Temp
				defer temp.Remove()
				dir, err := temp.Path()
				if err != nil {
					return err
				}
				b := box.Around(ws, dir)
				if err := b.Wrap(c); err != nil {
					return err
				}
			}
			signal.Ignore(syscall.SIGINT) // the terminal's ^C reaches the command; its end is ours
			err = c.Run()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return &exitError{code: ee.ExitCode()}
			}
			return err
		},
	}
	run.Flags().StringVar(&cwd, "cwd", ".", "the workspace: writable, and where the command starts")
	run.Flags().BoolVar(&unconfined, "unconfined", false, "run without the sandbox (to compare)")
	cmd.AddCommand(status, run)
	return cmd
}

// settings reads the settings file (the defaults when there is none).
func settings() (config.Config, error) {
	dir, err := config.Dir()
	if err != nil {
		return config.Config{}, err
	}
	return config.Open(dir).Load()
}
