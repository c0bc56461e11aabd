package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/wording"
)

// newMyDayCmd is `tofu myday`: today's (or a past day's) report, generated now and stored.
func newMyDayCmd() *cobra.Command {
	var date string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "myday",
		Short: "Write the daily report: what was done, open threads and TODOs, papers read, tokens and cost by model",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req := forward.DeskRequest{Op: forward.DeskMyDay, Date: date}
			st, inst, err := attach()
			if err != nil {
				return err
			}
			var ans forward.DeskAnswer
			if inst != nil {
				ans, err = inst.Desk(req)
			} else {
				defer st.Close()
				e, eerr := newEngine(st)
				if eerr != nil {
					return eerr
				}
				defer e.Close()
				ans, err = forward.AnswerMyDay(e.MyDay.Generate, req)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), ans.Day)
			}
			printDay(cmd.OutOrStdout(), *ans.Day)
			return nil
		},
	}
	cmd.Flags().StringVar(&date, "date", "", "the day, YYYY-MM-DD (default today)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func printDay(out io.Writer, r myday.Report) {
	fmt.Fprintf(out, "My Day — %s\n\n", r.Date)
	for _, line := range strings.Split(r.Summary, "\n") {
		fmt.Fprintln(out, termLine(line))
	}
	if r.Prose == myday.ProseModel {
		fmt.Fprintf(out, "(summary by %s)\n", r.Model)
	} else if r.ProseNote != "" {
		fmt.Fprintf(out, "(%s)\n", termLine(r.ProseNote))
	}
	if len(r.Sessions) > 0 {
		fmt.Fprintln(out, "\nConversations:")
		for _, s := range r.Sessions {
			fmt.Fprintf(out, "  %s  %d messages, %d tool calls  [%s]\n", termLine(wording.Clip(s.Title, 60)), s.Messages, s.ToolCalls, s.ID)
		}
	}
	if len(r.Open) > 0 {
		fmt.Fprintln(out, "\nOpen threads:")
		for _, o := range r.Open {
			fmt.Fprintf(out, "  %s: %s\n", termLine(wording.Clip(o.Title, 60)), o.Why)
		}
	}
	if len(r.Todos) > 0 {
		fmt.Fprintln(out, "\nTODO:")
		for _, t := range r.Todos {
			fmt.Fprintf(out, "  - %s\n", termLine(t))
		}
	}
	if len(r.Papers) > 0 {
		fmt.Fprintln(out, "\nPapers:")
		for _, p := range r.Papers {
			fmt.Fprintf(out, "  %s (%s)\n", termLine(wording.Clip(p.Title, 70)), p.What)
		}
	}
	if len(r.Models) > 0 {
		fmt.Fprintln(out, "\nTokens and cost by model:")
		for _, m := range append(r.Models, r.Total) {
			fmt.Fprintf(out, "  %-28s %4d calls %10d in %8d out  $%.4f\n", termLine(wording.Clip(m.Model, 28)), m.Calls, m.Input, m.Output, m.CostUSD)
		}
	}
}
