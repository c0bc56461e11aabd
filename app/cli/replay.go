package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/eval"
	"github.com/tofu-research/tofu/backend/shareddata"
)

// newReplayCmd is `tofu eval replay`: recorded agent trajectories through the context manager.
func newReplayCmd() *cobra.Command {
	var policies []string
	var configFile, dumpDir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "replay [--policy NAME|--config FILE] [--dump-requests DIR] [--json] PATH...",
		Short: "Replay recorded agent trajectories through the context manager, without a model",
		Long: "PATH is a trajectory file or a folder of them: mini-swe-agent (*.traj.json, messages[])\n" +
			"or SWE-agent (*.traj, history[] and trajectory[].query). Without PATH the shared\n" +
			"data's trajectories are used. For each policy, per trajectory and in total: model\n" +
			"calls, input tokens as recorded and as the policy would send them (o200k), the\n" +
			"reduction, the share a prompt cache could reuse, the cache-weighted cost (uncached +\n" +
			"0.1 x cached) and its cut, and how often a later step refers to content the policy\n" +
			"had compacted; then per-trajectory means and worst cases. A file that cannot be\n" +
			"replayed is listed as skipped with the reason; the others are still reported.\n\n" +
			"Policies: " + strings.Join(eval.PolicyNames, ", ") + " (default: all). --config FILE\n" +
			"replays a compact.Config in JSON (fields left out keep their defaults) as policy\n" +
			"\"config\", beside \"none\".",
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := trajectoryPaths(args)
			if err != nil {
				return err
			}
			trajs, skipped, err := eval.LoadTrajectories(args...)
			if err != nil {
				return err
			}
			var ps []eval.Policy
			names := policies
			if configFile != "" {
				cfg, err := compact.LoadConfig(configFile)
				if err != nil {
					return err
				}
				none, _ := eval.NewPolicy("none")
				ps = append(ps, none, eval.ConfigPolicy("config", cfg))
				names = nil
			} else if len(names) == 0 {
				names = eval.PolicyNames
			} else if names[0] != "none" {
				names = append([]string{"none"}, names...)
			}
			for _, n := range names {
				p, err := eval.NewPolicy(n)
				if err != nil {
					return err
				}
				ps = append(ps, p)
			}
			rep, err := eval.Replay(trajs, ps, eval.ReplayOptions{DumpDir: dumpDir})
			if err != nil {
				return err
			}
			rep.Skipped = append(skipped, rep.Skipped...)
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringSliceVar(&policies, "policy", nil, "policies to compare (repeatable; \"none\" is always included)")
	cmd.Flags().StringVar(&configFile, "config", "", "replay this compact.Config (JSON) instead of named policies")
	cmd.Flags().StringVar(&dumpDir, "dump-requests", "", "write every request as JSON to DIR/<policy>/<trajectory>/<call>.json")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// trajectoryPaths is the PATH arguments of the commands that read trajectories: those given,
// else the shared data's trajectories folder.
func trajectoryPaths(args []string) ([]string, error) {
	if len(args) > 0 {
		return args, nil
	}
	p := shareddata.Path("trajectories")
	if p == "" {
		return nil, fmt.Errorf("no PATH given and no shared/data/trajectories found (set TOFU_DATA)")
	}
	return []string{p}, nil
}
