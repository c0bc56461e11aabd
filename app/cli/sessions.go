package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/history"
)

func newSessionsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "sessions", Short: "Conversations in Tofu's database"}
	var asJSON bool
	var limit int
	search := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search every conversation's messages, tool calls and titles, in any language",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			query := strings.Join(args, " ")
			st, inst, err := attach()
			if err != nil {
				return err
			}
			var found []history.Match
			if inst != nil {
				found, err = inst.Search(query, limit)
			} else {
				defer st.Close()
				x := history.New(st)
				defer x.Close()
				found, err = x.Search(query, limit)
			}
			if err != nil {
				return err
			}
			return printMatches(cmd.OutOrStdout(), found, asJSON)
		},
	}
	search.Flags().BoolVar(&asJSON, "json", false, `print {"matches":[{session,title,seq,type,time,snippet,score}]}`)
	search.Flags().IntVar(&limit, "limit", 20, "most messages to show")
	cmd.AddCommand(newSessionsListCmd(), search, newSessionsShowCmd())
	return cmd
}

// printMatches prints what a history search found.
func printMatches(out io.Writer, found []history.Match, asJSON bool) error {
	if asJSON {
		if found == nil {
			found = []history.Match{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"matches": found})
	}
	if len(found) == 0 {
		fmt.Fprintln(out, "No message matches.")
		return nil
	}
	for _, m := range found {
		fmt.Fprintf(out, "%s  #%d  %s  %s\n    %s\n", m.Session, m.Seq, m.Time.Local().Format("2006-01-02 15:04"),
			termLine(m.Title), termLine(m.Snippet))
	}
	return nil
}
