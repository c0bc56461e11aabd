package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// MCPServer is one MCP server in config.json's "mcpServers", in the shape Claude Desktop, Claude
// Code (.mcp.json) and Cursor write, so a user can paste theirs; Tofu adds enabled, trusted,
// the timeouts and the tools switched off.
type MCPServer struct {
	// Type is "stdio", "http" (streamable HTTP) or "sse" (the older HTTP+SSE transport); empty
	// means stdio when Command is set, else http.
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Cwd is the directory the command runs in (empty: Tofu's).
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Enabled switches the server on (absent: on, as in the files users paste).
	Enabled *bool `json:"enabled,omitempty"`
	// Trusted lets the server's read-only hints count: its tools marked read-only run without
	// asking. An untrusted server could mark anything read-only.
	Trusted bool `json:"trusted,omitempty"`
	// StartupTimeout bounds starting and the handshake, in seconds (0: 30).
	StartupTimeout int `json:"startupTimeout,omitempty"`
	// Timeout bounds one tool call, in seconds (0: 300).
	Timeout int `json:"timeout,omitempty"`
	// DisabledTools are the server's tools not offered to the model.
	DisabledTools []string `json:"disabledTools,omitempty"`
	// Sandbox false runs a stdio server outside the sandbox (a person's explicit choice for a
	// server that needs the network or writes outside its cwd); absent or true: inside it,
	// when the agent's commands run in one (docs/MCP.md).
	Sandbox *bool `json:"sandbox,omitempty"`
}

// MCP transports.
const (
	MCPStdio = "stdio"
	MCPHTTP  = "http"
	MCPSSE   = "sse"
)

// Sandboxed reports whether the server's command runs in the sandbox, when there is one.
func (s MCPServer) Sandboxed() bool { return s.Sandbox == nil || *s.Sandbox }

// On reports whether the server is switched on.
func (s MCPServer) On() bool { return s.Enabled == nil || *s.Enabled }

// Transport is the server's transport, with the empty Type resolved.
func (s MCPServer) Transport() string {
	switch t := strings.ToLower(s.Type); t {
	case "streamable-http", "streamablehttp", "http":
		return MCPHTTP
	case "":
		if s.Command != "" {
			return MCPStdio
		}
		return MCPHTTP
	default:
		return t
	}
}

// Startup is the bound on starting the server and its handshake.
func (s MCPServer) Startup() time.Duration {
	if s.StartupTimeout > 0 {
		return time.Duration(s.StartupTimeout) * time.Second
	}
	return 30 * time.Second
}

// CallTimeout is the bound on one tool call.
func (s MCPServer) CallTimeout() time.Duration {
	if s.Timeout > 0 {
		return time.Duration(s.Timeout) * time.Second
	}
	return 300 * time.Second
}

// ToolOff reports whether the user switched the server's tool off.
func (s MCPServer) ToolOff(tool string) bool {
	for _, t := range s.DisabledTools {
		if t == tool {
			return true
		}
	}
	return false
}

// ValidMCPName reports whether name can name a server: it becomes part of tool names
// (mcp__<server>__<tool>), which providers limit to letters, digits, '_' and '-'.
func ValidMCPName(name string) bool {
	if name == "" || len(name) > 40 || strings.Contains(name, "__") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// validateMCP checks the servers and says which one is wrong and how.
func validateMCP(servers map[string]MCPServer) error {
	for name, s := range servers {
		where := fmt.Sprintf("MCP server %q", name)
		if !ValidMCPName(name) {
			return fmt.Errorf("%s: a name is letters, digits, '-' and '_' (no \"__\"), at most 40", where)
		}
		switch s.Transport() {
		case MCPStdio:
			if strings.TrimSpace(s.Command) == "" {
				return fmt.Errorf("%s: a stdio server needs a command (for example npx)", where)
			}
		case MCPHTTP, MCPSSE:
			u, err := url.Parse(s.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("%s: the url %q is not an http(s) URL", where, s.URL)
			}
		default:
			return fmt.Errorf("%s: type must be stdio, http or sse, not %q", where, s.Type)
		}
		if s.StartupTimeout < 0 || s.Timeout < 0 {
			return fmt.Errorf("%s: timeouts are seconds, 0 or more", where)
		}
	}
	return nil
}
