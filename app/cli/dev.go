package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/paper/papertest"
)

func newDevCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "dev", Short: "Tools for developing and demonstrating Tofu offline"}
	var addr, script, workspace string
	var ctxLen int
	fake := &cobra.Command{
		Use:   "fake-model",
		Short: "Serve a scripted model over Ollama's, OpenAI's and Anthropic's APIs",
		Long: "Serves a scripted model (the demo script, or --script FILE, see docs/PROVIDERS.md)\n" +
			"with fault injection, so the app can be demonstrated and debugged with no real model:\n" +
			"  tofu dev fake-model --addr 127.0.0.1:11500 &\n  OLLAMA_HOST=http://127.0.0.1:11500 tofu\n" +
			"In a workspace (the coding tools offered) the demo script does the tour: it reads README.md,\n" +
			"runs `sh hello.sh` (in the sandbox: no approval), and reports what came back; --workspace DIR writes those files.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if workspace != "" {
				if err := scripted.WriteDemoFiles(workspace); err != nil {
					return err
				}
			}
			srv, err := scripted.ListenDemo(addr, ctxLen, script)
			if err != nil {
				return err
			}
			defer srv.Close()
			fmt.Fprintln(cmd.OutOrStdout(), srv.URL)
			fmt.Fprintf(cmd.ErrOrStderr(), "fake model at %s — run Tofu with OLLAMA_HOST=%s; Ctrl+C stops\n", srv.URL, srv.URL)
			if workspace != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "the demo tour: OLLAMA_HOST=%s tofu run --cwd %s \"show me around\"\n", srv.URL, workspace)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			<-ctx.Done()
			return nil
		},
	}
	fake.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	fake.Flags().StringVar(&script, "script", "", "JSON script file (default: the demo script)")
	fake.Flags().IntVar(&ctxLen, "context", 8192, "context length the fake model reports")
	fake.Flags().StringVar(&workspace, "workspace", "", "write the demo tour's files (README.md, hello.sh) into this directory, keeping files already there")
	cmd.AddCommand(fake, newRelayModelCmd(), newHostilePDFCmd())
	return cmd
}

// newHostilePDFCmd writes the PDFs the extractor's resource bounds are measured on.
func newHostilePDFCmd() *cobra.Command {
	var size int64
	cmd := &cobra.Command{
		Use:   "hostile-pdf KIND FILE",
		Short: "Write a hostile PDF (" + strings.Join(papertest.Kinds, ", ") + ") to measure extraction on",
		Long: "Writes a PDF made to exhaust a reader: bomb (a stream inflating to --size bytes, 1 GB by\n" +
			"default), pages and text-pages (--size pages, 20,000 by default), objstm (--size pages),\n" +
			"escaped-objstm (a font in an object stream labelled /Obj#53tm /Subtype /Image, --size\n" +
			"bytes of padding after it), objstm-rereads (--size pages, 1,000 by default, using fonts in\n" +
			"36 disguised object streams, each behind 1.9 MB of padding), dense, cyclic-kids, dag-kids,\n" +
			"parent-loop, xref-size, xref-index and xref-table (a cross-reference naming object 2·10^8\n" +
			"or 10^9).\n" +
			"Measure with: /usr/bin/time -v tofu paper extract FILE",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Create(args[1])
			if err != nil {
				return err
			}
			if err := papertest.WriteKind(f, args[0], size); err != nil {
				f.Close()
				return fmt.Errorf("write %s: %w", args[1], err)
			}
			return f.Close()
		},
	}
	cmd.Flags().Int64Var(&size, "size", 0, "inflated bytes (bomb, escaped-objstm) or pages (pages, text-pages, objstm, objstm-rereads, dense); 0: the default")
	return cmd
}
