package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/store"
)

// deskSessions lists the conversations (`tofu sessions list`).
const deskSessions deskOp = "sessions"

// answerSessions lists st's conversations as the window's sidebar does: not a paper's internal
// sessions, not the trash; most recent activity first; at most limit (0: all).
func answerSessions(st *store.Store, limit int) (deskAnswer, error) {
	all, err := st.Sessions()
	list := []store.SessionInfo{}
	for _, info := range all {
		if info.Internal() || info.InTrash() || info.Stub() {
			continue
		}
		if limit > 0 && len(list) == limit {
			break
		}
		list = append(list, info)
	}
	return deskAnswer{Sessions: list}, err
}

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
			ans, err := deskCall(deskRequest{Op: deskSessions, Limit: limit})
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
