package configured

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/mcp"
)

// Server is one server as the settings show it: its configuration and its state.
type Server struct {
	mcp.State
	Config config.MCPServer `json:"config"`
}

// views lists the configured servers by name with their states ("connecting" for one not
// started yet).
func (s *Service) views() []Server {
	cfg, err := s.o.Config()
	if err != nil {
		return []Server{}
	}
	states := map[string]mcp.State{}
	for _, st := range s.mgr.States() {
		states[st.Name] = st
	}
	out := []Server{}
	for name, c := range cfg.MCPServers {
		st, ok := states[name]
		if !ok {
			st = mcp.State{Name: name, Status: mcp.StatusConnecting, Transport: c.Transport(), Tools: []mcp.ToolInfo{}}
			if !c.On() {
				st.Status = mcp.StatusDisabled
			}
		}
		out = append(out, Server{State: st, Config: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// change edits the configuration of the server name (which must exist unless create) and
// applies it.
func (s *Service) change(name string, create bool, fn func(*config.MCPServer)) ([]Server, error) {
	return s.edit(func(servers map[string]config.MCPServer) error {
		cur, ok := servers[name]
		if !ok && !create {
			return fmt.Errorf("no MCP server is named %q in the settings", name)
		}
		if fn == nil {
			delete(servers, name)
		} else {
			fn(&cur)
			servers[name] = cur
		}
		return nil
	})
}

// edit changes a copy of the configured servers with fn, saves it and applies it.
func (s *Service) edit(fn func(servers map[string]config.MCPServer) error) ([]Server, error) {
	_, err := s.o.File.Update(func(c *config.Config) error {
		servers := make(map[string]config.MCPServer, len(c.MCPServers)+1)
		for k, v := range c.MCPServers {
			servers[k] = v
		}
		if err := fn(servers); err != nil {
			return err
		}
		c.MCPServers = servers
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.o.Changed()
	s.sync()
	return s.views(), nil
}

// SetEnabled switches a server on or off.
func (s *Service) SetEnabled(name string, on bool) ([]Server, error) {
	return s.change(name, false, func(c *config.MCPServer) {
		c.Enabled = nil // on: as in the files users paste
		if !on {
			c.Enabled = new(bool)
		}
	})
}

// SetTrusted marks a server trusted (its read-only tools run without asking) or not.
func (s *Service) SetTrusted(name string, trusted bool) ([]Server, error) {
	return s.change(name, false, func(c *config.MCPServer) { c.Trusted = trusted })
}

// SetToolEnabled offers a server's tool to the model, or stops offering it.
func (s *Service) SetToolEnabled(name, tool string, on bool) ([]Server, error) {
	return s.change(name, false, func(c *config.MCPServer) {
		var off []string
		for _, t := range c.DisabledTools {
			if t != tool {
				off = append(off, t)
			}
		}
		if !on {
			off = append(off, tool)
		}
		c.DisabledTools = off
	})
}

// Add adds (or replaces) a server, e.g. pasted in Claude Desktop's shape.
func (s *Service) Add(name string, server config.MCPServer) ([]Server, error) {
	return s.change(name, true, func(c *config.MCPServer) { *c = server })
}

// Remove removes a server from the settings.
func (s *Service) Remove(name string) ([]Server, error) {
	return s.change(name, false, nil)
}

// ImportSources lists the other clients' files that hold servers (Claude Desktop, a
// workspace's .mcp.json, Cursor, VS Code), with what importing each would add.
func (s *Service) ImportSources(workspace string) ([]mcp.Source, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	cfg, err := s.o.Config()
	if err != nil {
		return nil, err
	}
	out := mcp.Sources(home, workspace, cfg.MCPServers)
	if out == nil {
		out = []mcp.Source{}
	}
	return out, nil
}

// Import adds the named servers (names as ImportSources gave them) of the file at path,
// replacing servers of the same name.
func (s *Service) Import(path string, names []string) ([]Server, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	servers, err := mcp.ParseServers(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	byName := map[string]config.MCPServer{}
	for from, srv := range servers {
		byName[mcp.ValidName(from)] = srv
	}
	want := map[string]config.MCPServer{}
	for _, n := range names {
		srv, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("%s has no server %q", path, n)
		}
		want[n] = srv
	}
	if len(want) == 0 {
		return nil, errors.New("choose the servers to import")
	}
	return s.edit(func(servers map[string]config.MCPServer) error {
		for k, v := range want {
			servers[k] = v
		}
		return nil
	})
}
