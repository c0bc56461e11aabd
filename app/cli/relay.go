package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/llm/relay"
)

// newRelayModelCmd serves a model answered by a person or a program (backend/llm/relay).
func newRelayModelCmd() *cobra.Command {
	var addr, dir, model string
	var ctxLen int
	cmd := &cobra.Command{
		Use:   "relay-model",
		Short: "Serve an OpenAI-compatible model answered by you, through files or the terminal",
		Long: "Serves POST /v1/chat/completions (streamed or not) and GET /v1/models; each request is\n" +
			"answered by a person or another program:\n" +
			"  --dir DIR: request N is written as DIR/NNNN.request.json and .request.md; write the\n" +
			"    answer to DIR/NNNN.reply\n" +
			"  otherwise: the newest messages and the tools are printed, the answer read from stdin\n" +
			"An answer is plain text, or tool calls written as {\"tool\": \"NAME\", \"arguments\": {...}}.\n" +
			"Point Tofu at it as an OpenAI-compatible provider (docs/PROVIDERS.md):\n" +
			"  tofu dev relay-model --addr 127.0.0.1:11600 --dir /tmp/relay &\n" +
			"  provider {\"name\": \"relay\", \"type\": \"openai\", \"base_url\": \"http://127.0.0.1:11600/v1\"}, model relay/relay",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var a relay.Answerer
			if dir != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return fmt.Errorf("relay folder: %w", err)
				}
				a = &relay.Files{Dir: dir, OnRequest: func(n int, md string) {
					_, _, reply := (&relay.Files{Dir: dir}).Paths(n)
					fmt.Fprintf(cmd.ErrOrStderr(), "request %d: read %s, answer in %s\n", n, md, reply)
				}, OnRefuse: func(_ int, msg string) { fmt.Fprint(cmd.ErrOrStderr(), msg) }}
			} else {
				a = &relay.Terminal{In: cmd.InOrStdin(), Out: cmd.ErrOrStderr()}
			}
			srv, err := relay.Listen(addr, model, ctxLen, a)
			if err != nil {
				return err
			}
			defer srv.Close()
			fmt.Fprintln(cmd.OutOrStdout(), srv.URL)
			fmt.Fprintf(cmd.ErrOrStderr(), "relay model %q at %s/v1; Ctrl+C stops\n", model, srv.URL)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			<-ctx.Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	cmd.Flags().StringVar(&dir, "dir", "", "answer through files in this folder (default: the terminal)")
	cmd.Flags().StringVar(&model, "model", "relay", "the model name it serves")
	cmd.Flags().IntVar(&ctxLen, "context", 131072, "context length the model reports")
	return cmd
}
