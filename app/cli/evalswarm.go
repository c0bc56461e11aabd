package cli

import (
	"context"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/eval"
)

// newEvalSwarmCmd is `tofu eval swarm`: the swarm's scheduler on a 12-agent graph answered by
// the scripted model on loopback (offline), calm and under a 429 storm.
func newEvalSwarmCmd() *cobra.Command {
	var asJSON bool
	var o eval.SwarmOptions
	cmd := &cobra.Command{
		Use:   "swarm",
		Short: "Measure the swarm's makespan against the critical path, and its 429 backoff",
		Long: "Runs spawn_agents on a 12-agent graph with fan-out and fan-in, the scripted model\n" +
			"answering each agent after a fixed delay: makespan (first start to last finish) against\n" +
			"the critical path (the longest chain of measured agent durations); the tokens of a result\n" +
			"injected into a dependent against its budget; then the same graph under a 429 storm.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			rep, err := eval.EvalSwarm(ctx, o)
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
	cmd.Flags().IntVar(&o.Parallel, "parallel", 8, "agents at once")
	cmd.Flags().DurationVar(&o.Delay, "delay", 300*time.Millisecond, "the scripted model's answer time")
	cmd.Flags().DurationVar(&o.Storm, "storm", 2*time.Second, "how long the provider refuses every agent call in the storm run")
	return cmd
}
