package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// newEvalApprovalsCmd is `tofu eval approvals`: how often the approval policy would stop
// recorded agent runs, and why.
func newEvalApprovalsCmd() *cobra.Command {
	var asJSON bool
	var roots, homes []string
	var commands, approve string
	cmd := &cobra.Command{
		Use:   "approvals [--json] [--commands sandbox|none|unconfined] PATH...",
		Short: "Replay the shell commands of recorded agent runs through the approval policy",
		Long: "PATH is a trajectory file or a folder of them, in the formats `tofu eval replay`\n" +
			"reads (mini-swe-agent, SWE-agent); without PATH the shared data's trajectories.\n" +
			"Every shell command the agent ran is decided by the policy of the window's default\n" +
			"mode (commands in the sandbox, asks left to a person), nothing runs. The\n" +
			"trajectories' repository root (--root, /testbed), home (--home, /root) and /tmp are\n" +
			"mapped into a scratch folder. Commands that reach the network count as asking\n" +
			"(\"" + eval.ReasonNetwork + "\"). Reports how many commands ask, why, and which.",
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := trajectoryPaths(args)
			if err != nil {
				return err
			}
			boundary, err := parseBoundary(commands)
			if err != nil {
				return err
			}
			mode, err := permission.ParseMode(approve)
			if err != nil {
				return err
			}
			trajs, skipped, err := eval.LoadTrajectories(args...)
			if err != nil {
				return err
			}
			scratch, err := os.MkdirTemp("", "tofu-approvals-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(scratch)
			opts := eval.DefaultApprovalsOptions(scratch)
			opts.Roots, opts.Homes, opts.Commands, opts.Mode = roots, homes, boundary, mode
			rep, err := eval.Approvals(trajs, opts)
			if err != nil {
				return err
			}
			rep.Skipped = skipped
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringSliceVar(&roots, "root", []string{"/testbed"}, "the trajectories' repository root, mapped onto the workspace (repeatable)")
	cmd.Flags().StringSliceVar(&homes, "home", []string{"/root"}, "the trajectories' home directory, mapped onto a scratch home (repeatable)")
	cmd.Flags().StringVar(&commands, "commands", "sandbox", "where commands run: sandbox, none (no sandbox on the machine) or unconfined")
	cmd.Flags().StringVar(&approve, "approve", "ask", "the approval mode: ask, safe, suite, all or never")
	return cmd
}

func parseBoundary(s string) (permission.Boundary, error) {
	for _, b := range []permission.Boundary{permission.BoundarySandbox, permission.BoundaryNone, permission.BoundaryUnconfined} {
		if b.String() == s {
			return b, nil
		}
	}
	return 0, fmt.Errorf("--commands must be sandbox, none or unconfined, not %q", s)
}
