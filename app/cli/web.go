package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/web"
)

// newWebCmd is `tofu web`: the web tools from the command line, for scripts and tests.
func newWebCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "web", Short: "Fetch web pages as the agent's fetch_url does"}
	var format string
	var timeout time.Duration
	var maxBytes int64
	fetch := &cobra.Command{
		Use:   "fetch URL",
		Short: "Fetch a page and print its main content (markdown, text or json)",
		Long: "Fetches URL (redirects followed, no cookies, size and time caps) and prints its main\n" +
			"content: HTML through readability to Markdown with absolute links, PDFs through the\n" +
			"paper extractor, text as it is. A URL typed here is your own choice: it is fetched\n" +
			"wherever it points, loopback and private addresses included.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "markdown" && format != "text" && format != "json" {
				return fmt.Errorf("--format %q: markdown, text or json", format)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			f := &web.Fetcher{Guard: web.Guard{AllowPrivate: true}, Timeout: timeout, MaxBytes: maxBytes}
			p, err := f.Fetch(ctx, args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch format {
			case "json":
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(p)
			case "text":
				_, err = fmt.Fprintln(out, p.Text)
			default:
				_, err = fmt.Fprintln(out, p.Markdown)
			}
			if p.Truncated {
				fmt.Fprintf(cmd.ErrOrStderr(), "tofu: the page was cut at %d bytes\n", p.Bytes)
			}
			return err
		},
	}
	fetch.Flags().StringVar(&format, "format", "markdown", "markdown, text or json")
	fetch.Flags().DurationVar(&timeout, "timeout", 20*time.Second, "give up after this long")
	fetch.Flags().Int64Var(&maxBytes, "max-bytes", 5<<20, "read at most this many bytes of the body")
	cmd.AddCommand(fetch)
	return cmd
}
