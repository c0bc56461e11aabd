package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/trace"
)

// newTraceCmd is `tofu trace`: the white-box trace of a conversation, checked and exported.
func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "trace", Short: "Check and export the exact requests a conversation sent to its models"}
	verify := &cobra.Command{
		Use:   "verify SESSION",
		Short: "Rebuild every model request of a conversation from its log and check the recorded fingerprints (exit 1 on the first mismatch)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ans, err := deskCall(forward.DeskRequest{Op: forward.DeskTraceVerify, Session: args[0]})
			if err != nil {
				return err
			}
			return printVerify(cmd.OutOrStdout(), *ans.Trace)
		},
	}
	var format string
	export := &cobra.Command{
		Use:   "export SESSION",
		Short: "Write a conversation's trace to stdout (JSON)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ans, err := deskCall(forward.DeskRequest{Op: forward.DeskTraceExport, Session: args[0], Format: format})
			if err != nil {
				return err
			}
			_, err = io.WriteString(cmd.OutOrStdout(), ans.Trace.Export)
			return err
		},
	}
	export.Flags().StringVar(&format, "format", trace.FormatTofu, "one of "+strings.Join(trace.Formats, ", "))
	cmd.AddCommand(verify, export)
	return cmd
}

func printVerify(out io.Writer, a forward.TraceAnswer) error {
	switch {
	case a.Mismatch != "":
		fmt.Fprintf(out, "%d of %d model calls verified\n", a.Verified, a.Calls)
	case a.Verified < a.Calls:
		// The others sent no request (the list below says why): nothing to check.
		fmt.Fprintf(out, "%d of %d model calls verified: every request sent matches its fingerprint\n", a.Verified, a.Calls)
	default:
		fmt.Fprintf(out, "%d model calls verified: every request matches its fingerprint\n", a.Calls)
	}
	for _, line := range a.Checked {
		fmt.Fprintf(out, "  %s\n", line)
	}
	if a.Mismatch != "" {
		return fmt.Errorf("trace does not match the log: %s", a.Mismatch)
	}
	return nil
}
