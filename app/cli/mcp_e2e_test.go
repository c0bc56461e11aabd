package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/testtools"
)

// TestMCPEndToEnd drives MCP in the front end in headless Chromium against `tofu serve`
// (frontend/e2e/mcp.e2e.mjs): the settings section with a connected and a broken server, a tool
// switched off (written to config.json), and a server prompt sent from the composer as a slash
// command. It runs when TOFU_E2E=1, like the other browser tests. Not parallel: it sets
// environment variables.
func TestMCPEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	everything := testtools.Node(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	configHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", configHome)
	t.Setenv("TOFU_KEYRING", "off")
	os.MkdirAll(filepath.Join(configHome, "tofu"), 0o755)
	cfg := `{"mcpServers": {"everything": {"command": "node", "args": [` + strconvQuote(everything) + `, "stdio"]},
		"broken": {"command": "uvx", "args": ["x"], "env": {"PATH": "/nonexistent"}}}}`
	if err := os.WriteFile(filepath.Join(configHome, "tofu", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	_, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "mcp.e2e.mjs", "mcp-e2e.png")
	stop()
	b, err := os.ReadFile(filepath.Join(configHome, "tofu", "config.json"))
	if err != nil || !strings.Contains(string(b), `"disabledTools"`) {
		t.Fatalf("the tool switched off is not in config.json: %s %v", b, err)
	}
}
