package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/config"
)

// TestSourcesReadOtherClients: Claude Desktop's config, a workspace's .mcp.json (Claude Code)
// and Cursor's file are found and read in their own shapes; names Tofu would refuse are made
// valid; a server already configured alike is marked so, and a broken file says why.
func TestSourcesReadOtherClients(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := SourcePaths(home, ws)
	write(paths["Claude Desktop"], `{"mcpServers": {
		"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"]},
		"brave search": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search"], "env": {"BRAVE_API_KEY": "k"}}}}`)
	write(paths["Claude Code (.mcp.json)"], `{"mcpServers": {"docs": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}},
		"old": {"type": "sse", "url": "http://127.0.0.1:9000/sse"}}}`)
	write(paths["Cursor"], `{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "disabled": true}}}`)
	write(paths["VS Code (workspace)"], `{"servers": {`)

	have := map[string]config.MCPServer{"filesystem": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me"}}}
	srcs := Sources(home, ws, have)
	by := map[string]Source{}
	for _, s := range srcs {
		by[s.Client] = s
	}
	if len(srcs) != 4 {
		t.Fatalf("sources: %+v", srcs)
	}
	cd := by["Claude Desktop"].Servers
	if len(cd) != 2 || cd[0].Name != "brave-search" || cd[0].From != "brave search" || cd[0].Server.Env["BRAVE_API_KEY"] != "k" ||
		cd[1].Name != "filesystem" || !cd[1].Exists || !cd[1].Same {
		t.Fatalf("Claude Desktop: %+v", cd)
	}
	cc := by["Claude Code (.mcp.json)"].Servers
	if len(cc) != 2 || cc[0].Server.Transport() != config.MCPHTTP || cc[0].Server.Headers["Authorization"] != "Bearer t" || cc[1].Server.Transport() != config.MCPSSE {
		t.Fatalf(".mcp.json: %+v", cc)
	}
	if cu := by["Cursor"].Servers; len(cu) != 1 || cu[0].Server.On() {
		t.Fatalf("Cursor's disabled server: %+v", cu)
	}
	if by["VS Code (workspace)"].Error == "" {
		t.Fatal("a broken file must say why")
	}
	for _, s := range srcs {
		for _, c := range s.Servers {
			if !config.ValidMCPName(c.Name) {
				t.Fatalf("%s: invalid name %q", s.Client, c.Name)
			}
		}
	}
}
