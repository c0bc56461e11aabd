package app

import (
	"github.com/tofu-research/tofu/backend/mcp/configured"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/mcp"
	"github.com/tofu-research/tofu/backend/testtools"
)

// serverOf waits (a minute at most: only a hang takes that long) until the named server of
// the settings view satisfies ok.
// (Every state change is emitted on configured.Topic, which the fixture's recorder hears.)
func serverOf(t *testing.T, f *fixture, name string, ok func(configured.Server) bool) configured.Server {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		for _, v := range f.app.MCP.Servers() {
			if v.Name == name && ok(v) {
				return v
			}
		}
		select {
		case <-f.rec.notify:
		case <-deadline:
			t.Fatalf("server %s: %+v", name, f.app.MCP.Servers())
		}
	}
}

// TestMCPServiceSettings: the settings' MCP section adds a server, shows it connected with its
// tools, switches a tool and the server off and on, imports from Claude Desktop's file, and a
// Settings save made with an older copy keeps the servers.
func TestMCPServiceSettings(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	f := newFixtureWith(t, scripted.New(t, scripted.DemoModel()), t.TempDir())
	s := f.app.MCP
	before, err := f.app.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	ev := config.MCPServer{Command: "node", Args: []string{testtools.Node(t, "@modelcontextprotocol/server-everything", "dist/index.js"), "stdio"}}
	if _, err := s.Add("everything", ev); err != nil {
		t.Fatal(err)
	}
	v := serverOf(t, f, "everything", func(v configured.Server) bool { return v.Status == mcp.StatusConnected && len(v.Tools) >= 13 })
	if _, err := s.SetToolEnabled("everything", "get-env", false); err != nil {
		t.Fatal(err)
	}
	v = serverOf(t, f, "everything", func(v configured.Server) bool { return v.Status == mcp.StatusConnected && len(v.Tools) >= 13 })
	for _, tl := range v.Tools {
		if tl.Disabled != (tl.Name == "get-env") {
			t.Fatalf("tool switches: %+v", v.Tools)
		}
	}
	if _, err := s.SetEnabled("everything", false); err != nil {
		t.Fatal(err)
	}
	serverOf(t, f, "everything", func(v configured.Server) bool { return v.Status == mcp.StatusDisabled })

	desktop := mcp.SourcePaths(home, "")["Claude Desktop"]
	os.MkdirAll(filepath.Dir(desktop), 0o755)
	os.WriteFile(desktop, []byte(`{"mcpServers":{"my memory":{"command":"node","args":["`+testtools.Node(t, "@modelcontextprotocol/server-memory", "dist/index.js")+`"],"env":{"MEMORY_FILE_PATH":"`+filepath.Join(home, "m.jsonl")+`"}}}}`), 0o644)
	srcs, err := s.ImportSources("")
	if err != nil || len(srcs) != 1 || len(srcs[0].Servers) != 1 || srcs[0].Servers[0].Name != "my-memory" {
		t.Fatalf("import sources: %v %+v", err, srcs)
	}
	if _, err := s.Import(srcs[0].Path, []string{"my-memory"}); err != nil {
		t.Fatal(err)
	}
	serverOf(t, f, "my-memory", func(v configured.Server) bool { return v.Status == mcp.StatusConnected })

	// The Settings form still holds the copy read before any server existed.
	if _, err := f.app.Settings.Update(before); err != nil {
		t.Fatal(err)
	}
	cfg, _ := f.app.Settings.config()
	if len(cfg.MCPServers) != 2 || cfg.MCPServers["everything"].On() || !cfg.MCPServers["everything"].ToolOff("get-env") {
		t.Fatalf("after a Settings save: %+v", cfg.MCPServers)
	}
	if _, err := s.Remove("my-memory"); err != nil {
		t.Fatal(err)
	}
	if vs := s.Servers(); len(vs) != 1 {
		t.Fatalf("after remove: %+v", vs)
	}
}
