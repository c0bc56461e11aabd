package cli

import (
	"context"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/paper/extractcmd"
	_ "github.com/tofu-research/tofu/backend/paper/pdfrepair" // tofu repairs PDFs in process (and for tofu-pdf)
)

func newPaperCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "paper", Short: "Work with papers (PDF)"}
	var f extractcmd.Flags
	extract := &cobra.Command{
		Use:   extractcmd.Use,
		Short: extractcmd.Short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			return extractcmd.Run(ctx, args[0], f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	extract.Flags().StringVarP(&f.Format, "format", "f", "text", extractcmd.FormatUsage)
	extract.Flags().StringVarP(&f.Pages, "pages", "p", "", extractcmd.PagesUsage)
	extract.Flags().StringVar(&f.Password, "password", "", extractcmd.PasswordUsage)
	extract.Flags().BoolVar(&f.Progress, "progress", false, extractcmd.ProgressUsage)
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
