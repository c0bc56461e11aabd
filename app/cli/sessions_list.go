package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/store"
)

// newSessionsListCmd is `tofu sessions list`: the ids `--continue`, `sessions show` and
// `trace` take, with what each conversation is.
func newSessionsListCmd() *cobra.Command {
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the conversations, most recent first: id, last activity, messages, model and title",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ans, err := deskCall(forward.DeskRequest{Op: forward.DeskSessions, Limit: limit})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"sessions": ans.Sessions})
			}
			printSessions(cmd.OutOrStdout(), ans.Sessions)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"sessions":[{id,title,created,updated,model,events,workspace,…}]}`)
	cmd.Flags().IntVar(&limit, "limit", 30, "most conversations to show (0: all)")
	return cmd
}

func printSessions(out io.Writer, list []store.SessionInfo) {
	if len(list) == 0 {
		fmt.Fprintln(out, "No conversations yet: `tofu run \"…\"` or `tofu chat` starts one.")
		return
	}
	for _, s := range list {
		model := s.Model
		if model == "" {
			model = "default model"
		}
		fmt.Fprintf(out, "%s  %s  %4d events  %-20s  %s\n", s.ID, s.Updated.Local().Format("2006-01-02 15:04"),
			s.Events, termLine(model), termLine(s.Title))
	}
	fmt.Fprintln(out, "(tofu sessions show ID prints one; tofu run --continue ID goes on with it)")
}
