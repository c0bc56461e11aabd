package cli

import (
	"context"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/eval"
)

// newEvalTranslateCmd is `tofu eval translate`: language detection and the protected-span
// round trip through the built-in adversarial translator, offline.
func newEvalTranslateCmd() *cobra.Command {
	var asJSON bool
	var maxChunk int
	cmd := &cobra.Command{
		Use:   "translate FILE.jsonl...",
		Short: "Measure language detection and protected spans through an adversarial translator",
		Long: "Reads records with a problem_statement, problem or text field (and lang when known).\n" +
			"For each: the detected language (ISO 639-1), then a round trip through the built-in\n" +
			"adversarial translator, which rewrites all prose and moves, mangles, repeats and drops\n" +
			"placeholders the ways models do; reports the share of protected spans (code, URLs,\n" +
			"paths, identifiers, numbers with units, math) restored byte-exact.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			rep, err := eval.EvalTranslate(ctx, args, maxChunk)
			if err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"records","languages","spans","restored",…} as JSON`)
	cmd.Flags().IntVar(&maxChunk, "chunk", 600, "runes per chunk (small, so long records cross chunk boundaries)")
	return cmd
}
