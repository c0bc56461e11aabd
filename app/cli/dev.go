package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/llm/llmtest"
)

func newDevCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "dev", Short: "Tools for developing and demonstrating Tofu offline"}
	var addr, script string
	var ctxLen int
	fake := &cobra.Command{
		Use:   "fake-model",
		Short: "Serve a scripted model over Ollama's, OpenAI's and Anthropic's APIs",
		Long: "Serves a scripted model (the demo script, or --script FILE, see docs/PROVIDERS.md)\n" +
			"with fault injection, so the app can be demonstrated and debugged with no real model:\n" +
			"  tofu dev fake-model --addr 127.0.0.1:11500 &\n  OLLAMA_HOST=http://127.0.0.1:11500 tofu",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			srv, err := llmtest.ListenDemo(addr, ctxLen, script)
			if err != nil {
				return err
			}
			defer srv.Close()
			fmt.Fprintln(cmd.OutOrStdout(), srv.URL)
			fmt.Fprintf(cmd.ErrOrStderr(), "fake model at %s — run Tofu with OLLAMA_HOST=%s; Ctrl+C stops\n", srv.URL, srv.URL)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			<-ctx.Done()
			return nil
		},
	}
	fake.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	fake.Flags().StringVar(&script, "script", "", "JSON script file (default: the demo script)")
	fake.Flags().IntVar(&ctxLen, "context", 8192, "context length the fake model reports")
	cmd.AddCommand(fake)
	return cmd
}
