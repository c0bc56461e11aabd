package cli

import (
	"context"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/eval"
)

func newEvalPaperQACmd() *cobra.Command {
	var asJSON bool
	var papers string
	cmd := &cobra.Command{
		Use:   "paperqa --papers DIR QUESTIONS.jsonl",
		Short: "Measure the paper reader's grounded retrieval on questions with known evidence",
		Long: "Each line of QUESTIONS.jsonl is {\"paper\": FOLDER, \"question\": …, \"evidence\": [sentence, …],\n" +
			"\"pages\": [n, …]}, FOLDER a folder under --papers holding paper.pdf. The passages each\n" +
			"question would be answered from are retrieved as the reader does, without a model, and\n" +
			"scored: evidence recall at 1, 3 and 5 passages (a sentence is found when a passage holds\n" +
			"90% of it as one run, whitespace removed and case folded), whether the top passage is on\n" +
			"an evidence page, the o200k tokens of the passages sent, and the median retrieval time.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			qs, err := eval.ReadPaperQuestions(args[0])
			if err != nil {
				return err
			}
			rep, err := eval.EvalPaperQA(ctx, papers, qs)
			if err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&papers, "papers", "", "folder of papers, one folder each with paper.pdf")
	_ = cmd.MarkFlagRequired("papers")
	return cmd
}
