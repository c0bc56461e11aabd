package mcp

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/config"
)

// Status is where a server stands.
type Status string

const (
	StatusDisabled   Status = "disabled"   // switched off in the settings
	StatusConnecting Status = "connecting" // starting, or restarting after a crash
	StatusConnected  Status = "connected"
	StatusFailed     Status = "failed" // Error says why
)

// State is a server's status for the settings, `tofu mcp list` and the turns.
type State struct {
	Name      string `json:"name"`
	Status    Status `json:"status"`
	Transport string `json:"transport"`
	// Error says why the server failed (or why it is restarting), with the fix when known.
	Error string `json:"error,omitempty"`
	// Stderr is the end of what the server printed on stderr.
	Stderr   string     `json:"stderr,omitempty"`
	Restarts int        `json:"restarts,omitempty"`
	Server   string     `json:"server,omitempty"` // the name and version it gave
	Protocol string     `json:"protocol,omitempty"`
	Tools    []ToolInfo `json:"tools"`
}

// ToolInfo is one tool of a server as listed.
type ToolInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ReadOnly    bool   `json:"read_only,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"` // switched off by the user
}

// Backoff between restarts of a server that crashed: doubling from the first to the last; a
// server that stayed up for stable starts again from the first.
var (
	firstBackoff = 500 * time.Millisecond
	lastBackoff  = 60 * time.Second
	stable       = time.Minute
)

// config is the server's configuration (its switches may change while it runs).
func (s *server) config() config.MCPServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// sameProcess reports whether a and b start the same server: they differ at most in what
// Tofu does with its tools (which are on, whether it is trusted), which needs no restart.
func sameProcess(a, b config.MCPServer) bool {
	a.DisabledTools, b.DisabledTools = nil, nil
	a.Trusted, b.Trusted = false, false
	return reflect.DeepEqual(a, b)
}

// server supervises one configured server: it connects, and after a crash it reconnects with
// backoff. A server that fails to start stays failed (a missing command will not appear by
// retrying) until it is restarted.
type server struct {
	name string
	cfg  config.MCPServer
	m    *Manager

	mu       sync.Mutex
	status   Status
	err      error
	conn     *conn
	last     *process // the last process, for its stderr after it died
	restarts int
	changed  chan struct{} // closed and replaced at each change

	cancel context.CancelFunc
	done   chan struct{}
}

func newServer(m *Manager, name string, cfg config.MCPServer) *server {
	s := &server{name: name, cfg: cfg, m: m, status: StatusDisabled, changed: make(chan struct{}), done: make(chan struct{})}
	if !cfg.On() {
		close(s.done)
		return s
	}
	s.status = StatusConnecting
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.run(ctx)
	return s
}

func (s *server) set(fn func()) {
	s.mu.Lock()
	fn()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	s.m.notify()
}

func (s *server) run(ctx context.Context) {
	defer close(s.done)
	backoff := firstBackoff
	for {
		h := &handlers{server: s.name, fallback: s.m.o.Requests}
		cfg := s.config()
		c, err := dial(ctx, s.name, cfg, &s.m.spawner, s.m.boundary(cfg), h)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.set(func() { s.status, s.err, s.conn = StatusFailed, err, nil })
			return
		}
		c.mu.Lock()
		c.onTools = func() { s.set(func() {}) }
		c.mu.Unlock()
		up := time.Now()
		s.set(func() { s.status, s.err, s.conn, s.last = StatusConnected, nil, c, c.proc })
		if c.proc == nil { // HTTP: nothing to supervise; calls fail on their own
			<-ctx.Done()
			c.close()
			return
		}
		select {
		case <-ctx.Done():
			c.close()
			return
		case <-c.proc.exited:
		}
		crash := c.proc.exitError(s.name)
		c.close()
		if time.Since(up) > stable {
			backoff = firstBackoff
		}
		s.set(func() {
			s.status, s.err, s.conn = StatusConnecting, errors.New(crash.Error()+" (restarting)"), nil
			s.restarts++
		})
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, lastBackoff)
	}
}

// stop ends the server and waits for its process to be gone.
func (s *server) stop() {
	if s.cancel != nil {
		s.cancel()
	}
	<-s.done
}

// wait blocks until the server is not connecting, or ctx ends.
func (s *server) wait(ctx context.Context) {
	for {
		s.mu.Lock()
		st, ch := s.status, s.changed
		s.mu.Unlock()
		if st != StatusConnecting {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// state is the server's State.
func (s *server) state() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := State{Name: s.name, Status: s.status, Transport: s.cfg.Transport(), Restarts: s.restarts, Tools: []ToolInfo{}}
	if s.err != nil {
		st.Error = s.err.Error()
	}
	if s.last != nil {
		st.Stderr = lastLines(s.last.stderr.String(), 20)
	}
	if s.conn != nil {
		st.Server = s.conn.info.Name + " " + s.conn.info.Version
		st.Protocol = s.conn.proto
		for _, t := range s.conn.Tools() {
			st.Tools = append(st.Tools, ToolInfo{Name: t.Name, Description: t.Description,
				ReadOnly: readOnlyHint(t), Disabled: s.cfg.ToolOff(t.Name)})
		}
	}
	return st
}

func readOnlyHint(t mcp.Tool) bool {
	return t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
}

// connected returns the live connection, or why there is none.
func (s *server) connected() (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.conn != nil:
		return s.conn, nil
	case s.status == StatusDisabled:
		return nil, errors.New("MCP server " + s.name + " is switched off in the settings")
	case s.err != nil:
		return nil, s.err
	}
	return nil, errors.New("MCP server " + s.name + " is still starting")
}
