package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/tools/checkpoint"
	"github.com/tofu-research/tofu/backend/wording"
)

// newCheckpointsCmd is `tofu checkpoints`: the files an agent changed in a session, recorded
// with their content before, listed by message and taken back (docs/CHECKPOINTS.md).
func newCheckpointsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "checkpoints", Short: "List and undo the file changes an agent made in a conversation"}
	var asJSON, dryRun bool
	var to uint64
	list := &cobra.Command{
		Use:   "list SESSION",
		Short: "The messages the workspace's files can be taken back to, with the files changed since",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ans, err := deskCall(forward.DeskRequest{Op: forward.DeskPoints, Session: args[0]})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return printJSON(out, map[string]any{"session": ans.Info.ID, "workspace": ans.Info.Workspace, "checkpoints": ans.Points})
			}
			if len(ans.Points) == 0 {
				fmt.Fprintln(out, "No file to take back: the agent changed none in this conversation, or its changes are undone.")
				return nil
			}
			for _, p := range ans.Points {
				fmt.Fprintf(out, "#%d  %s  %s\n    %d files changed since: %s\n", p.Seq, p.Time.Local().Format("2006-01-02 15:04"),
					termLine(wording.Clip(p.Text, 80)), len(p.Files), termLine(wording.Clip(joinPaths(p.Files), 200)))
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, `print {"session","workspace","checkpoints":[{seq,text,time,files}]}`)
	restore := &cobra.Command{
		Use:   "restore SESSION --to SEQ",
		Short: "Undo the file changes made since message SEQ (refused, with diffs, where a file changed since the agent wrote it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == 0 {
				return errors.New("--to SEQ names the message to go back to (tofu checkpoints list shows them)")
			}
			op := forward.DeskRestore
			if dryRun {
				op = forward.DeskPlan
			}
			ans, err := deskCall(forward.DeskRequest{Op: op, Session: args[0], To: to})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := printJSON(out, map[string]any{"plan": ans.Plan, "refused": ans.Refused || (dryRun && len(ans.Plan.Conflicts) > 0), "done": !dryRun && !ans.Refused}); err != nil {
					return err
				}
			} else {
				printPlan(out, *ans.Plan, dryRun)
			}
			if ans.Refused || (dryRun && len(ans.Plan.Conflicts) > 0) {
				return fmt.Errorf("%d files changed since the agent wrote them: nothing was undone", len(ans.Plan.Conflicts))
			}
			return nil
		},
	}
	restore.Flags().Uint64Var(&to, "to", 0, "the message (its #seq in tofu checkpoints list) whose changes and all later ones are undone")
	restore.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be undone, with diffs, and change nothing")
	restore.Flags().BoolVar(&asJSON, "json", false, `print {"plan":{since,steps,conflicts},"refused","done"}`)
	cmd.AddCommand(list, restore)
	return cmd
}

// printPlan shows an undo's files and diffs, or why it was refused.
func printPlan(out io.Writer, plan checkpoint.Plan, dryRun bool) {
	if len(plan.Conflicts) > 0 {
		fmt.Fprintf(out, "Refused: %d files changed since the agent wrote them; nothing was undone.\n", len(plan.Conflicts))
		for _, c := range plan.Conflicts {
			fmt.Fprintf(out, "\n%s: %s\n", termLine(c.Path), c.Reason)
			if c.Binary {
				fmt.Fprintln(out, "    (binary file)")
			} else if c.Diff != "" {
				fmt.Fprintln(out, termText(c.Diff))
			}
		}
		return
	}
	if len(plan.Steps) == 0 {
		fmt.Fprintln(out, "Nothing to undo: no file changed since this message (or it is undone already).")
		return
	}
	verb := "Undone"
	if dryRun {
		verb = "Would undo"
	}
	fmt.Fprintf(out, "%s: %d files\n", verb, len(plan.Steps))
	for _, st := range plan.Steps {
		fmt.Fprintf(out, "\n%s %s\n", st.Action, termLine(st.Path))
		if st.Binary {
			fmt.Fprintln(out, "    (binary file)")
		} else if st.Diff != "" {
			fmt.Fprintln(out, termText(st.Diff))
		}
	}
}

func joinPaths(ps []string) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += ", "
		}
		s += p
	}
	return s
}

func printJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
