package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	mcpserve "github.com/tofu-research/tofu/backend/mcp/serve"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// TokenEnv gives `tofu mcp serve --http` its bearer token (else a random one is printed).
const TokenEnv = "TOFU_MCP_TOKEN"

func newMCPServeCmd() *cobra.Command {
	var addr, approve string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve Tofu's library, sessions and run_task to other agents over MCP (stdio, or --http)",
		Long: "Over stdio by default (for a client that starts `tofu mcp serve`). With --http ADDR, streamable\n" +
			"HTTP on a loopback address (path /mcp), every request needing \"Authorization: Bearer TOKEN\":\n" +
			"the token is $" + TokenEnv + ", else a random one printed on stderr. Beside a running window or\n" +
			"`tofu serve`, stdio is served by that Tofu (forwarded over its command socket); --http is not.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mode, err := permission.ParseMode(approve)
			if err != nil {
				return err
			}
			if mode == permission.ModeAsk {
				return errors.New("--approve ask needs a person at Tofu's side: use safe, never or all")
			}
			if addr != "" {
				if err := loopback(addr); err != nil {
					return err
				}
			}
			st, fwd, err := attach()
			if err != nil {
				return err
			}
			if fwd != nil {
				// The window or `tofu serve` holds the database: its MCP server serves this
				// client, over the command socket.
				if addr != "" {
					fwd.Close()
					return errors.New("tofu mcp serve --http cannot run beside the window or `tofu serve` (they hold Tofu's database): serve over stdio, which is forwarded to the running Tofu, or quit it first")
				}
				return fwd.MCP(approve, cmd.InOrStdin(), cmd.OutOrStdout(), os.Stderr)
			}
			defer st.Close()
			e, err := newEngine(st)
			if err != nil {
				return err
			}
			defer e.Close()
			s := e.MCPServer(mode, Version)
			if addr == "" {
				return server.ServeStdio(s)
			}
			return serveMCPHTTP(cmd, s, addr)
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:7331) instead of stdio")
	cmd.Flags().StringVar(&approve, "approve", "safe", "approval mode of run_task's turns: safe, never or all")
	return cmd
}

// loopback refuses an address other machines could reach.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--http %s: only a loopback address (127.0.0.1, ::1, localhost) is served", addr)
	}
	return nil
}

func serveMCPHTTP(cmd *cobra.Command, s *server.MCPServer, addr string) error {
	token := os.Getenv(TokenEnv)
	if token == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		token = hex.EncodeToString(b)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserve.Authorized(token, server.NewStreamableHTTPServer(s)))
	srv := &http.Server{Handler: mux}
	fmt.Fprintf(cmd.ErrOrStderr(), "tofu mcp serve: http://%s/mcp\n", ln.Addr())
	if os.Getenv(TokenEnv) == "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "token: %s\n", token)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
