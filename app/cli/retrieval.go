package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/search"
)

func newEvalRetrievalCmd() *cobra.Command {
	var asJSON bool
	var k1, b float64
	var analyzer string
	cmd := &cobra.Command{
		Use:   "retrieval DIR...",
		Short: "Measure the retrieval engine on BEIR-layout collections",
		Long: "Each DIR holds corpus.jsonl (_id, title, text), queries.jsonl (_id, text) and\n" +
			"qrels.tsv (header query-id, corpus-id, score), e.g. shared/data/ir/cacm. Reports\n" +
			"nDCG@10 (graded and binary), MRR@10, recall@100, query time and index build and size.\n" +
			"Documents are indexed by title, text and the strings of their metadata, weighed alike.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			opt := eval.RetrievalOptions{Params: search.Params{K1: k1, B: b}}
			switch analyzer {
			case "tofu":
			case "ascii":
				opt.Analyze = eval.ASCIITerms
			default:
				return fmt.Errorf("--analyzer %q: want tofu or ascii", analyzer)
			}
			rep, err := eval.EvalRetrieval(ctx, args, opt)
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
	cmd.Flags().Float64Var(&k1, "k1", search.DefaultParams.K1, "BM25 term-frequency saturation")
	cmd.Flags().StringVar(&analyzer, "analyzer", "tofu", "tofu, or ascii (the ASCII-only baseline)")
	cmd.Flags().Float64Var(&b, "b", search.DefaultParams.B, "BM25 length normalization")
	return cmd
}
