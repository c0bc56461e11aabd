package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
)

// TestStartFailuresSayWhy: a missing command names the server and how to install it; a
// server that prints text instead of MCP on stdout, whether it exits or stays silent, is an
// error naming the server, quoting what it printed and its stderr; none of them hangs.
func TestStartFailuresSayWhy(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	w := newWatched(t, Options{}, map[string]config.MCPServer{
		"nonode":  {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}, Env: map[string]string{"PATH": empty}},
		"nouv":    {Command: "uvx", Args: []string{"mcp-server-git"}, Env: map[string]string{"PATH": empty}},
		"garbage": {Command: "sh", Args: []string{"-c", "echo 'Listening on port 3000'; echo 'bad config' >&2; exit 3"}},
		"silent":  {Command: "sh", Args: []string{"-c", "echo 'hello from a banner'; exec sleep 600"}, StartupTimeout: 1},
		"off":     {Command: "sh", Enabled: new(bool)},
	})
	states := w.until(t, "every server failed", func(s map[string]State) bool {
		for _, st := range s {
			if st.Status == StatusConnecting {
				return false
			}
		}
		return len(s) == 5
	})
	for name, want := range map[string][]string{
		"nonode":  {"MCP server nonode", `"npx" was not found`, "install Node.js"},
		"nouv":    {"MCP server nouv", `"uvx" was not found`, "install uv"},
		"garbage": {"MCP server garbage", "exit status 3", "not MCP on stdout", "Listening on port 3000", "bad config"},
		"silent":  {"MCP server silent", "did not answer the MCP handshake in time", "hello from a banner"},
	} {
		st := states[name]
		if st.Status != StatusFailed {
			t.Fatalf("%s: %+v", name, st)
		}
		mustContain(t, name, st.Error, want...)
	}
	if states["off"].Status != StatusDisabled {
		t.Fatalf("off: %+v", states["off"])
	}
	_, err := w.Call(context.Background(), "garbage", "x", nil, CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "not MCP on stdout") {
		t.Fatalf("a call to a failed server: %v", err)
	}
	if _, err := w.Call(context.Background(), "off", "x", nil, CallOptions{}); err == nil || !strings.Contains(err.Error(), "switched off") {
		t.Fatalf("a call to a server switched off: %v", err)
	}
}
