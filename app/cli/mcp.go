package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/mcp"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
)

func newMCPCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "MCP servers: list them and their tools, call a tool, serve Tofu's tools"}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the MCP servers of the settings, their status and tools",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := startMCP()
			var none *noMCPServers
			if errors.As(err, &none) {
				if asJSON {
					return writeMCPJSON(cmd.OutOrStdout(), nil)
				}
				fmt.Fprintln(cmd.OutOrStdout(), none.Error())
				return nil
			}
			if err != nil {
				return err
			}
			defer m.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			m.Wait(ctx)
			if asJSON {
				return writeMCPJSON(cmd.OutOrStdout(), m.States())
			}
			writeMCPText(cmd.OutOrStdout(), m.States())
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, `print {"servers":[{"name","status","tools":[{"name","description"}]}]}`)
	var timeout int
	call := &cobra.Command{
		Use:   "call SERVER TOOL [JSON]",
		Short: "Call a tool of an MCP server and print its result (exit 1 on a tool error)",
		Args:  cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw := "{}"
			if len(args) == 3 {
				raw = args[2]
			}
			params, aerr := tools.ParseObject(args[1], json.RawMessage(raw))
			if aerr != nil {
				return fmt.Errorf("the arguments: %s", aerr.Problems[0].Message)
			}
			m, err := startMCP()
			if err != nil {
				return err
			}
			defer m.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			if err := m.WaitFor(ctx, args[0]); err != nil {
				return err
			}
			errOut := cmd.ErrOrStderr()
			res, err := m.CallTool(ctx, args[0], args[1], params, mcp.CallOptions{
				Timeout: secondsOf(timeout),
				Progress: func(p mcp.Progress) {
					fmt.Fprintf(errOut, "progress %g/%g %s\n", p.Progress, p.Total, p.Message)
				},
			})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), res.Text)
			if res.IsError {
				return &exitError{code: 1, msg: "the tool reported an error"}
			}
			return nil
		},
	}
	call.Flags().IntVar(&timeout, "timeout", 0, "seconds to wait for the result (default: the server's timeout)")
	cmd.AddCommand(list, call, newMCPServeCmd())
	return cmd
}

func secondsOf(n int) time.Duration { return time.Duration(n) * time.Second }

// startMCP starts the servers of the settings (the database is not needed, so this works
// while the window runs).
func startMCP() (*mcp.Manager, error) {
	dir, err := config.Dir()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Open(dir).Load()
	if err != nil {
		return nil, err
	}
	if len(cfg.MCPServers) == 0 {
		return nil, &noMCPServers{path: config.Open(dir).Path()}
	}
	box := session.CommandSandbox(cfg)
	m := mcp.NewManager(mcp.Options{Sandbox: func() *sandbox.Boundary { return box }})
	m.Apply(cfg.MCPServers)
	return m, nil
}

// noMCPServers is startMCP's answer when the settings name no server: `tofu mcp list` prints
// it as an empty list, `tofu mcp call` as an error.
type noMCPServers struct{ path string }

func (e *noMCPServers) Error() string {
	where := e.path
	if _, err := os.Stat(e.path); err != nil {
		where += ", a file that does not exist yet"
	}
	return fmt.Sprintf(`No MCP servers are set up. Add one in the window (Settings → MCP servers) or under "mcpServers" in %s (the shape Claude Desktop uses).`, where)
}

func writeMCPJSON(w io.Writer, states []mcp.State) error {
	type tool struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	type server struct {
		Name   string     `json:"name"`
		Status mcp.Status `json:"status"`
		Error  string     `json:"error,omitempty"`
		Tools  []tool     `json:"tools"`
	}
	out := struct {
		Servers []server `json:"servers"`
	}{Servers: []server{}}
	for _, s := range states {
		srv := server{Name: s.Name, Status: s.Status, Error: s.Error, Tools: []tool{}}
		for _, t := range s.Tools {
			srv.Tools = append(srv.Tools, tool{Name: t.Name, Description: t.Description})
		}
		out.Servers = append(out.Servers, srv)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeMCPText(w io.Writer, states []mcp.State) {
	for _, s := range states {
		switch s.Status {
		case mcp.StatusConnected:
			fmt.Fprintf(w, "%s: connected (%s, %s), %d tools\n", s.Name, s.Server, s.Transport, len(s.Tools))
		case mcp.StatusFailed:
			fmt.Fprintf(w, "%s: failed: %s\n", s.Name, s.Error)
		default:
			fmt.Fprintf(w, "%s: %s\n", s.Name, s.Status)
		}
		for _, t := range s.Tools {
			desc, _, _ := strings.Cut(t.Description, "\n")
			off := ""
			if t.Disabled {
				off = " (off)"
			}
			fmt.Fprintf(w, "  %s%s  %s\n", t.Name, off, desc)
		}
	}
}
