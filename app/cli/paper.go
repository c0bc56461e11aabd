package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/paper"
)

func newPaperCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "paper", Short: "Work with papers (PDF)"}
	var format, pages, password string
	var progress bool
	extract := &cobra.Command{
		Use:   "extract FILE.pdf",
		Short: "Print a PDF's text in reading order (text, markdown or json)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rng, err := paper.ParsePages(pages)
			if err != nil {
				return err
			}
			oneShotGC()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			opts := paper.Options{Pages: rng, Password: password}
			if progress {
				opts.Progress = func(done, total int) { fmt.Fprintf(cmd.ErrOrStderr(), "\rpage %d/%d", done, total) }
			}
			doc, err := paper.OpenContext(ctx, args[0], opts)
			if progress {
				fmt.Fprintln(cmd.ErrOrStderr())
			}
			if err != nil {
				return err
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			if err := doc.Write(w, format); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	extract.Flags().StringVarP(&format, "format", "f", "text", "output format: text, markdown or json")
	extract.Flags().StringVarP(&pages, "pages", "p", "", `pages to extract, e.g. "1-3,5" (default: all)`)
	extract.Flags().StringVar(&password, "password", "", "password of an encrypted PDF")
	extract.Flags().BoolVar(&progress, "progress", false, "show progress on stderr")
	cmd.AddCommand(extract, newPaperAddCmd(), newPaperListCmd(), newPaperAskCmd())
	return cmd
}

func newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "eval", Short: "Measure the harness on recorded data"}
	var asJSON bool
	var runs int
	pdf := &cobra.Command{
		Use:   "pdf DIR",
		Short: "Compare PDF extraction with ground truth, side by side with pdftotext -raw",
		Long: "DIR holds one folder per paper with paper.pdf and groundtruth/ (see\n" +
			"shared/data/papers). Reports, for Tofu and for pdftotext, word F1, reading order (on the\n" +
			"truth's running text), symbol recall (math and typographic symbols of the truth found, as\n" +
			"multisets) and pages per second, and how many of pdftotext's symbols Tofu finds.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			rep, err := eval.EvalPDF(ctx, args[0], eval.PDFOptions{Runs: runs})
			if err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	pdf.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	pdf.Flags().IntVar(&runs, "runs", 3, "runs per extractor and paper (the fastest counts)")
	cmd.AddCommand(pdf, newReplayCmd(), newEvalApprovalsCmd(), newEvalRetrievalCmd(), newEvalPaperQACmd(), newEvalBrowserCmd(), newEvalSwarmCmd(), newEvalTranslateCmd(), newEvalTasksCmd(), newEvalLocalCmd())
	return cmd
}

// oneShotGC lets the heap of a process that extracts one file and exits grow five times its
// live size between collections instead of twice (GOGC=400): a 21-page paper then takes a
// few collections instead of seven, some 15% of the command's CPU. A soft limit of 512 MB,
// the extractor's own bound (docs/PAPER.md), makes the collector work harder before a
// hostile file could take more. GOGC or GOMEMLIMIT set by the user win.
func oneShotGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(512 << 20)
	}
}
