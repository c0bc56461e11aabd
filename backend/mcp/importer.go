package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/tofu-research/tofu/backend/config"
)

// Source is a file of another MCP client whose servers can be imported.
type Source struct {
	Client string `json:"client"` // "Claude Desktop", "Claude Code (.mcp.json)", "Cursor", …
	Path   string `json:"path"`
	// Servers are the file's servers under the names they would get here.
	Servers []Candidate `json:"servers"`
	// Error says why the file could not be read (it exists but is not valid).
	Error string `json:"error,omitempty"`
}

// Candidate is one server a Source would add.
type Candidate struct {
	Name   string           `json:"name"`
	From   string           `json:"from"` // its name in the file, when it had to change
	Server config.MCPServer `json:"server"`
	// Exists is true when the settings already have a server of that name (importing replaces
	// it only when asked).
	Exists bool `json:"exists"`
	// Same is true when that server is configured exactly alike.
	Same bool `json:"same"`
}

// SourcePaths are the files other clients keep their servers in, by client, for home and a
// workspace ("" : none): Claude Desktop's config, Claude Code's .mcp.json in the workspace,
// Cursor's global and workspace mcp.json, VS Code's workspace mcp.json.
func SourcePaths(home, workspace string) map[string]string {
	out := map[string]string{"Cursor": filepath.Join(home, ".cursor", "mcp.json")}
	switch runtime.GOOS {
	case "darwin":
		out["Claude Desktop"] = filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
	case "windows":
		out["Claude Desktop"] = filepath.Join(os.Getenv("APPDATA"), "Claude", "claude_desktop_config.json")
	default:
		out["Claude Desktop"] = filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	}
	if workspace != "" {
		out["Claude Code (.mcp.json)"] = filepath.Join(workspace, ".mcp.json")
		out["Cursor (workspace)"] = filepath.Join(workspace, ".cursor", "mcp.json")
		out["VS Code (workspace)"] = filepath.Join(workspace, ".vscode", "mcp.json")
	}
	return out
}

// Sources reads the files of SourcePaths that exist, with their servers as they would be
// imported next to have (the servers configured now).
func Sources(home, workspace string, have map[string]config.MCPServer) []Source {
	var out []Source
	for client, path := range SourcePaths(home, workspace) {
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		src := Source{Client: client, Path: path}
		if err == nil {
			var servers map[string]config.MCPServer
			if servers, err = ParseServers(b); err == nil {
				src.Servers = candidates(servers, have)
			}
		}
		if err != nil {
			src.Error = err.Error()
		}
		out = append(out, src)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Client < out[j].Client })
	return out
}

// ParseServers reads the servers of another client's file: "mcpServers" (Claude Desktop,
// Claude Code, Cursor) or "servers" (VS Code). A "disabled": true becomes enabled false; a
// "transport" or "type" of streamable-http becomes http.
func ParseServers(b []byte) (map[string]config.MCPServer, error) {
	var f struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	raw := f.MCPServers
	if raw == nil {
		raw = f.Servers
	}
	out := map[string]config.MCPServer{}
	for name, r := range raw {
		var s config.MCPServer
		var extra struct {
			Disabled  bool   `json:"disabled"`
			Transport string `json:"transport"`
			ServerURL string `json:"serverUrl"` // Windsurf
		}
		if err := json.Unmarshal(r, &s); err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
		_ = json.Unmarshal(r, &extra)
		if extra.Disabled {
			s.Enabled = new(bool)
		}
		if s.Type == "" && extra.Transport != "" {
			s.Type = extra.Transport
		}
		if s.URL == "" {
			s.URL = extra.ServerURL
		}
		if s.Type != "" {
			s.Type = config.MCPServer{Type: s.Type, Command: s.Command}.Transport()
		}
		out[name] = s
	}
	return out, nil
}

// candidates names each server for the settings (names made valid; see config.ValidMCPName)
// and compares it with what is configured.
func candidates(servers map[string]config.MCPServer, have map[string]config.MCPServer) []Candidate {
	var out []Candidate
	for from, s := range servers {
		c := Candidate{Name: ValidName(from), Server: s}
		if c.Name != from {
			c.From = from
		}
		if h, ok := have[c.Name]; ok {
			c.Exists = true
			a, _ := json.Marshal(h)
			b, _ := json.Marshal(s)
			c.Same = string(a) == string(b)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ValidName turns another client's server name into one Tofu accepts.
func ValidName(name string) string {
	out := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, strings.TrimSpace(name))
	for strings.Contains(out, "__") {
		out = strings.ReplaceAll(out, "__", "_")
	}
	out = strings.Trim(out, "-_")
	if len(out) > 40 {
		out = out[:40]
	}
	if out == "" {
		out = "server"
	}
	return out
}
