// Package mcp is Tofu's Model Context Protocol client: it runs the servers of the settings
// (stdio, streamable HTTP, SSE) and offers their tools to turns as mcp__<server>__<tool>.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// Options wire a Manager.
type Options struct {
	// Requests answers sampling and elicitation outside a call that brings its own (nil:
	// sampling is refused, elicitation declined).
	Requests Requests
	// OnChange is called after any server's state changed (connected, failed, tools listed).
	OnChange func()
	// Sandbox returns, as a stdio server starts, the boundary its command runs inside (the
	// settings' template: session.CommandSandbox); nil, or a nil result, runs it unconfined,
	// as does a server whose settings say "sandbox": false.
	Sandbox func() *sandbox.Boundary
}

// Manager runs the configured servers. It is safe for concurrent use; there is one per process.
type Manager struct {
	o       Options
	spawner procgroup.Spawner

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
}

// NewManager returns a manager with no servers; Apply gives it the settings'.
func NewManager(o Options) *Manager {
	return &Manager{o: o, servers: map[string]*server{}}
}

// boundary is the template s's command runs inside, or nil for none.
func (m *Manager) boundary(s config.MCPServer) *sandbox.Boundary {
	if m.o.Sandbox == nil || !s.Sandboxed() || s.Transport() != config.MCPStdio {
		return nil
	}
	return m.o.Sandbox()
}

func (m *Manager) notify() {
	if m.o.OnChange != nil {
		m.o.OnChange()
	}
}

// Apply makes the running servers those of cfg: new and changed ones start (in the
// background), removed and changed ones stop.
func (m *Manager) Apply(cfg map[string]config.MCPServer) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var stop []*server
	soft := map[*server]config.MCPServer{} // a tool switched, trust changed: no restart
	for name, s := range m.servers {
		c, ok := cfg[name]
		switch cur := s.config(); {
		case ok && reflect.DeepEqual(c, cur):
		case ok && sameProcess(c, cur):
			soft[s] = c
		default:
			stop = append(stop, s)
			delete(m.servers, name)
		}
	}
	for name, c := range cfg {
		if _, ok := m.servers[name]; !ok {
			m.servers[name] = newServer(m, name, c)
		}
	}
	m.mu.Unlock()
	for s, c := range soft {
		s.set(func() { s.cfg = c })
	}
	for _, s := range stop {
		s.stop()
	}
	m.notify()
}

// Restart stops and starts the named server again (the settings' "Test", or after a fix).
func (m *Manager) Restart(name string) error {
	m.mu.Lock()
	s, ok := m.servers[name]
	if ok {
		delete(m.servers, name)
	}
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("no MCP server is named %q", name)
	}
	s.stop()
	m.mu.Lock()
	if !m.closed {
		if _, again := m.servers[name]; !again {
			m.servers[name] = newServer(m, name, s.config())
		}
	}
	m.mu.Unlock()
	m.notify()
	return nil
}

// Close stops every server and waits for their processes to end.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	all := m.servers
	m.servers = map[string]*server{}
	m.mu.Unlock()
	for _, s := range all {
		s.stop()
	}
	m.spawner.Close()
}

func (m *Manager) list() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (m *Manager) server(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("no MCP server is named %q in the settings", name)
	}
	return s, nil
}

// Wait blocks until no server is starting (each bounded by its startup timeout), or ctx ends.
func (m *Manager) Wait(ctx context.Context) {
	for _, s := range m.list() {
		s.wait(ctx)
	}
}

// WaitFor blocks until the named server is not starting, or ctx ends.
func (m *Manager) WaitFor(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.wait(ctx)
	return nil
}

// States lists the servers by name.
func (m *Manager) States() []State {
	var out []State
	for _, s := range m.list() {
		out = append(out, s.state())
	}
	return out
}

// CallOptions tune one call.
type CallOptions struct {
	// Progress receives the server's progress notifications.
	Progress func(Progress)
	// Requests answers sampling and elicitation while the call runs (nil: the manager's).
	Requests Requests
	// Timeout overrides the server's per-call timeout.
	Timeout time.Duration
}

// Call calls a server's tool under its per-call timeout. Ending ctx cancels the call on the
// server. A crash during the call is an error naming the server, with its stderr.
func (m *Manager) Call(ctx context.Context, serverName, tool string, args map[string]any, o CallOptions) (*mcp.CallToolResult, error) {
	s, err := m.server(serverName)
	if err != nil {
		return nil, err
	}
	c, err := s.connected()
	if err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = s.config().CallTimeout()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.call(ctx, tool, args, &flight{progress: o.Progress, requests: o.Requests})
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, context.DeadlineExceeded) && context.Cause(ctx) == context.DeadlineExceeded:
		return nil, fmt.Errorf("MCP server %s: %s did not answer within %s (the server's timeout; raise \"timeout\" in its settings)", serverName, tool, timeout)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, transport.ErrTransportClosed) && c.proc != nil:
		wait, stop := context.WithTimeout(context.Background(), exitGrace)
		defer stop()
		if c.proc.waitExit(wait) {
			return nil, fmt.Errorf("during the call of %s: %w", tool, c.proc.exitError(serverName))
		}
	}
	return nil, fmt.Errorf("MCP server %s: call %s: %w", serverName, tool, err)
}

// Tools lists the tools of the connected server name, without the ones switched off.
func (m *Manager) tools(name string) (config.MCPServer, []mcp.Tool) {
	s, err := m.server(name)
	if err != nil {
		return config.MCPServer{}, nil
	}
	cfg := s.config()
	c, err := s.connected()
	if err != nil {
		return cfg, nil
	}
	var out []mcp.Tool
	for _, t := range c.Tools() {
		if !cfg.ToolOff(t.Name) {
			out = append(out, t)
		}
	}
	return cfg, out
}

// CallTool calls a server's tool with args fitted to its schema, and returns what a model
// would read (text, images attached, resources, structured content), with the call's last
// progress in its meta.
func (m *Manager) CallTool(ctx context.Context, server, tool string, args map[string]any, o CallOptions) (tools.Result, error) {
	if s, err := m.server(server); err == nil {
		if c, err := s.connected(); err == nil {
			for _, d := range c.Tools() {
				if d.Name == tool {
					args, _ = coerce(args, schemaOf(d)).(map[string]any)
				}
			}
		}
	}
	var mu sync.Mutex
	var last *Progress
	show := o.Progress
	o.Progress = func(p Progress) {
		mu.Lock()
		last = &p
		mu.Unlock()
		if show != nil {
			show(p)
		}
	}
	res, err := m.Call(ctx, server, tool, args, o)
	if err != nil {
		return tools.Result{}, err
	}
	out := toResult(server, tool, res)
	mu.Lock()
	out.Meta.(*ResultMeta).Progress = last
	mu.Unlock()
	return out, nil
}
