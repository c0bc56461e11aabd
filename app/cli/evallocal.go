package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/eval"
)

// newEvalLocalCmd is `tofu eval local`: recorded trajectories through the context manager
// against a real Ollama server, measuring what its KV cache serves.
func newEvalLocalCmd() *cobra.Command {
	var opts eval.LocalOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "local [--ollama URL --model NAME [--ollama-log FILE] | --ollama-bin PATH] [--steps N] [--sessions N] [--modes M,...] [--offline] [--json] [PATH...]",
		Short: "Replay recorded trajectories against a real Ollama server and measure its KV-cache reuse",
		Long: "PATH is a trajectory file or folder, as for `tofu eval replay` (default: the shared data's\n" +
			"trajectories); the first --sessions of them (default 3) are replayed, each cut to its first\n" +
			"--steps calls. Every request is built by the context manager and sent as Tofu's Ollama\n" +
			"provider sends it (num_ctx from the window plan), asked for one token. Per step: prompt\n" +
			"tokens (prompt_eval_count), the tokens the server evaluated (not served from its cache,\n" +
			"from the runner's cache-slot log line), prefill time (prompt_eval_duration) and time to\n" +
			"first token. Modes: each session alone under the naive resend, the hosted-cache policy and\n" +
			"the local policy; the sessions at once (a swarm); one session with summary-model calls in\n" +
			"between, on a server with a slot for it and on one with a single slot.\n\n" +
			"Without --ollama it starts the tests' real server (--ollama-bin, or TOFU_OLLAMA_BIN; build/\n" +
			"ollama.sh builds one) with a generated model of 32k context. With --ollama URL it uses that\n" +
			"server and --model; the evaluated tokens need its log (--ollama-log, the server started\n" +
			"with OLLAMA_DEBUG=1), else only times are reported.",
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := trajectoryPaths(args)
			if err != nil {
				return err
			}
			if opts.URL == "" && opts.Bin == "" {
				opts.Bin = os.Getenv("TOFU_OLLAMA_BIN")
			}
			trajs, _, err := eval.LoadTrajectories(args...)
			if err != nil {
				return err
			}
			opts.Progress = cmd.ErrOrStderr()
			rep, err := eval.RunLocal(cmd.Context(), trajs, opts)
			if err != nil {
				return err
			}
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.URL, "ollama", "", "a running Ollama server (default: start the tests' real server)")
	f.StringVar(&opts.Bin, "ollama-bin", "", "the ollama executable to start (default: $TOFU_OLLAMA_BIN)")
	f.StringVar(&opts.LogFile, "ollama-log", "", "with --ollama: that server's log (OLLAMA_DEBUG=1), for the evaluated tokens")
	f.StringVar(&opts.Model, "model", "", "with --ollama: the model to run")
	f.IntVar(&opts.Steps, "steps", 0, "cut each trajectory to its first N calls (0: all)")
	f.IntVar(&opts.Sessions, "sessions", 3, "trajectories to replay (the swarm runs them at once)")
	f.IntVar(&opts.SummaryEvery, "summary-every", 4, "steps between two summary-model calls in the summary mode")
	f.StringSliceVar(&opts.Modes, "modes", nil, "the runs to make, of "+strings.Join(eval.LocalModes, ",")+" (default: all)")
	f.BoolVar(&opts.Offline, "offline", false, "no server: whole messages the previous request sent count as cached (o200k tokens; single-session modes)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
