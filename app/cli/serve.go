package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/app"
	"github.com/tofu-research/tofu/app/web"
	"github.com/tofu-research/tofu/backend/store"
)

func newServeCmd(frontend fs.FS) *cobra.Command {
	var port int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Tofu UI to a browser on 127.0.0.1 (with a per-run token)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, dir, err := openStore()
			if err != nil {
				return err
			}
			defer st.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, st, frontend, port, cmd.OutOrStdout(), dir)
		},
	}
	cmd.Flags().IntVar(&port, "port", 0, "port on 127.0.0.1 (0 picks a free one)")
	return cmd
}

// Serve runs the HTTP transport until ctx ends, printing the address (with its token) to out.
func Serve(ctx context.Context, st *store.Store, frontend fs.FS, port int, out io.Writer) error {
	return serve(ctx, st, frontend, port, out, "")
}

// serve is Serve that also takes commands from the terminal on dataDir's socket ("": none).
func serve(ctx context.Context, st *store.Store, frontend fs.FS, port int, out io.Writer, dataDir string) error {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1:%d: %w", port, err)
	}
	fan := &app.Fanout{}
	a, err := newApp(st, fan, nil)
	if err != nil {
		return err
	}
	defer a.Close()
	defer startScheduler(a.Engine)() // jobs run while Tofu is open
	defer startBridges(a)()          // chat apps reach Tofu while it is open (docs/BRIDGES.md)
	stopCommands := func() {}
	if dataDir != "" {
		stopCommands = takeCommands(dataDir, a, st, fan)
	}
	defer stopCommands()
	token := web.NewToken()
	srv := web.NewServer(a.Services(), a.PaperHandler(), frontend, token)
	fan.Add(srv)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "Tofu is serving on http://%s/#token=%s\n", ln.Addr(), token)
	if !web.UIBuilt(frontend) {
		fmt.Fprintln(out, web.UINotBuilt)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	a.Close() // record interrupted replies before the connections go
	stopCommands()
	return hs.Shutdown(shutdown)
}
