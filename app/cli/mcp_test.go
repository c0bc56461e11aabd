package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/testtools"
)

// tofuCLI runs the test binary as `tofu args…` with the settings in cfgHome.
func tofuCLI(t *testing.T, cfgHome string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=TestCLIHelper")
	cmd.Env = append(os.Environ(), "TOFU_CLI_HELPER=1", "XDG_CONFIG_HOME="+cfgHome, "XDG_DATA_HOME="+t.TempDir(),
		"TOFU_KEYRING=off", "TOFU_CLI_ARGS="+strings.Join(args, "\x1f"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestMCPListAndCall: `tofu mcp list --json` prints the servers of config.json in the
// documented shape (a server that cannot start included, with why); `tofu mcp call` prints a
// tool's result, and exits 1 when the tool reports an error.
func TestMCPListAndCall(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	everything := testtools.Node(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	cfg := `{"mcpServers": {
		"everything": {"command": "node", "args": [` + strconvQuote(everything) + `, "stdio"]},
		"broken": {"command": "uvx", "args": ["nothing"], "env": {"PATH": "/nonexistent"}}
	}}`
	if err := os.MkdirAll(filepath.Join(home, "tofu"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "tofu", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := tofuCLI(t, home, "mcp", "list", "--json")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	var list struct {
		Servers []struct {
			Name, Status, Error string
			Tools               []struct{ Name, Description string }
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	if len(list.Servers) != 2 || list.Servers[0].Name != "broken" || list.Servers[0].Status != "failed" ||
		!strings.Contains(list.Servers[0].Error, "install uv") || list.Servers[1].Status != "connected" || len(list.Servers[1].Tools) < 13 {
		t.Fatalf("list --json: %s", out)
	}

	out, errOut, code = tofuCLI(t, home, "mcp", "call", "everything", "get-sum", `{"a": 2, "b": "40"}`)
	if code != 0 || !strings.Contains(out, "42") {
		t.Fatalf("call get-sum: exit %d: %q %s", code, out, errOut)
	}
	out, errOut, code = tofuCLI(t, home, "mcp", "call", "everything", "trigger-long-running-operation", `{"duration": 1, "steps": 2}`)
	if code != 0 || !strings.Contains(errOut, "progress 2/2") {
		t.Fatalf("call with progress: exit %d: %q %s", code, out, errOut)
	}
	out, _, code = tofuCLI(t, home, "mcp", "call", "everything", "get-sum", `{"a": "two"}`)
	if code != 1 || out == "" {
		t.Fatalf("a tool error: exit %d: %q", code, out)
	}
	_, errOut, code = tofuCLI(t, home, "mcp", "call", "broken", "x")
	if code != 1 || !strings.Contains(errOut, "MCP server broken") {
		t.Fatalf("a broken server: exit %d: %s", code, errOut)
	}
	_, errOut, code = tofuCLI(t, home, "mcp", "serve", "--http", "0.0.0.0:7331")
	if code != 1 || !strings.Contains(errOut, "only a loopback address") {
		t.Fatalf("serve on every interface: exit %d: %s", code, errOut)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// With no server set up, `tofu mcp list` is not an error: it says how to add one, and its JSON
// is an empty list (a script reading it needs no special case). `call` still fails, saying why.
func TestMCPListWithNoServers(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out := execute(t, newMCPCmd(), "list")
	if !strings.Contains(out, "No MCP servers are set up") || !strings.Contains(out, "does not exist yet") {
		t.Fatalf("text: %q", out)
	}
	if out := execute(t, newMCPCmd(), "list", "--json"); strings.TrimSpace(out) != "{\n  \"servers\": []\n}" {
		t.Fatalf("json: %q", out)
	}
	cmd := newMCPCmd()
	cmd.SetArgs([]string{"call", "fs", "read"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "No MCP servers are set up") {
		t.Fatalf("call with no servers: %v", err)
	}
}
