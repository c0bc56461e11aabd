package mcp

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

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

// A server that sends requests and never reads the answers is stopped once a write to it has
// waited stdinStall, and says why: the transport answered each request from a goroutine of its
// own, queued behind the write that waited, 18,000 a second until the process ran out of memory.
func TestServerThatStopsReadingIsStopped(t *testing.T) {
	t.Parallel()
	// It answers the handshake and the tool list, then asks for samples without end and
	// reads nothing more.
	script := `id() { sed 's/.*"id":\([0-9]*\).*/\1/'; }
read -r l; printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}\n' "$(echo "$l" | id)"
read -r l
read -r l; printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}\n' "$(echo "$l" | id)"
i=0; while :; do i=$((i+1)); printf '{"jsonrpc":"2.0","id":"s%d","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":1}}\n' $i; done`
	w := newWatched(t, Options{}, map[string]config.MCPServer{"flood": {Command: "sh", Args: []string{"-c", script}}})
	st := w.until(t, "the flood stopped", func(s map[string]State) bool { return strings.Contains(s["flood"].Error, "stopped reading") })
	mustContain(t, "flood", st["flood"].Error, "it stopped reading what Tofu sends it (a write waited 2s), so Tofu stopped it")
	w.Apply(nil) // no restart to flood again
	// The answers queued behind the write end with the server: the goroutines go.
	deadline := time.Now().Add(time.Minute)
	for n := runtime.NumGoroutine(); n > 1000; n = runtime.NumGoroutine() {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines a minute after the server was stopped", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
