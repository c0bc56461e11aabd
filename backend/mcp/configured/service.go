// Package configured runs the MCP servers the settings configure and shows their state: the
// Settings panel's list (switched on and off, trusted, tools offered, added, removed, imported
// from other clients' files), restarted, and their resources and prompts for the composer. The
// window's MCPService (app) is Service bound to the user interface: every exported method of
// Service is callable from the page, so the rest are functions.
package configured

import (
	"context"
	"errors"
	"sync"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/mcp"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/store"
)

// Topic carries the MCP servers ([]Server) after any change of their state.
const Topic = "mcp"

// Options are what a Service works with.
type Options struct {
	// File is the settings file the panel changes; Config reads the settings.
	File   *config.File
	Config func() (config.Config, error)
	// Changed tells the app the settings changed (providers are rebuilt, listeners run).
	Changed func()
	// Sandbox is the boundary of the servers' processes.
	Sandbox func() *sandbox.Boundary
	// Emit sends an event to the user interface (it must not block); nil: none.
	Emit func(topic string, data any)
}

// Service runs the MCP servers of the settings and shows their state. The servers start
// when first needed (a turn, the settings page, `tofu mcp`), not with every command.
type Service struct {
	mgr *mcp.Manager
	o   Options

	mu      sync.Mutex
	started bool
}

// New makes the service; no server starts before the first call that needs one.
func New(o Options) *Service {
	s := &Service{o: o}
	s.mgr = mcp.NewManager(mcp.Options{OnChange: func() {
		if s.o.Emit != nil {
			s.o.Emit(Topic, s.views())
		}
	}, Sandbox: o.Sandbox})
	return s
}

// SettingsChanged applies the settings again once the servers have been started.
func SettingsChanged(s *Service) {
	s.mu.Lock()
	on := s.started
	s.mu.Unlock()
	if on {
		s.sync()
	}
}

// Client is the manager of the servers, without applying the settings first (the turns'
// tool family applies them on each turn).
func Client(s *Service) *mcp.Manager { return s.mgr }

// Sync starts, stops and restarts servers to match the settings.
func Sync(s *Service) { s.sync() }

// Close stops every server.
func Close(s *Service) { s.mgr.Close() }

// Manager is the client that runs the servers (`tofu mcp` uses it directly).
func (s *Service) Manager() *mcp.Manager {
	s.sync()
	return s.mgr
}

// sync starts, stops and restarts servers to match the settings (a hand edit of config.json
// included).
func (s *Service) sync() {
	cfg, err := s.o.Config()
	if err != nil {
		return // the settings say what is wrong elsewhere; keep the servers as they are
	}
	s.mu.Lock()
	s.started = true
	s.mu.Unlock()
	s.mgr.Apply(cfg.MCPServers)
}

// Servers lists the servers of the settings with their state and tools, at once (the ones
// starting say so; MCPTopic brings the changes). It starts them if they were not running.
func (s *Service) Servers() []Server {
	s.sync()
	return s.views()
}

// Restart restarts a server (the settings' "Test") and returns its state once it connected or
// failed.
func (s *Service) Restart(name string) (Server, error) {
	s.sync()
	if err := s.mgr.Restart(name); err != nil {
		return Server{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcp.TurnWait)
	defer cancel()
	if err := s.mgr.WaitFor(ctx, name); err != nil {
		return Server{}, err
	}
	for _, v := range s.views() {
		if v.Name == name {
			return v, nil
		}
	}
	return Server{}, errors.New("the server is gone from the settings")
}

// Resources lists the connected servers' resources and resource templates (the composer's
// attach menu); a server that failed to list is named in Errors.
func (s *Service) Resources() mcp.ResourceList {
	s.sync()
	ctx, cancel := context.WithTimeout(context.Background(), mcp.TurnWait)
	defer cancel()
	s.mgr.Wait(ctx)
	return s.mgr.Resources(ctx)
}

// ReadResource reads a server's resource (a template's URI filled with vars) and returns it as
// an attachment for ChatService.SendAttached.
func (s *Service) ReadResource(server, uri string, vars map[string]string) (store.Attachment, error) {
	s.sync()
	if len(vars) > 0 {
		u, err := mcp.Expand(uri, vars)
		if err != nil {
			return store.Attachment{}, err
		}
		uri = u
	}
	r, err := s.mgr.ReadResource(context.Background(), server, uri)
	if err != nil {
		return store.Attachment{}, err
	}
	// The name is the composer's to set (it listed the resource); the URI stands for it here.
	return store.Attachment{Kind: store.AttachMCPResource, Server: server, URI: r.URI, Name: r.URI, MimeType: r.MimeType, Text: r.Text, Size: r.Size}, nil
}

// Prompts lists the connected servers' prompts: the composer offers them as /server:name.
func (s *Service) Prompts() []mcp.PromptInfo {
	s.sync()
	return s.mgr.Prompts()
}

// ExpandPrompt turns "/server:prompt arguments" into the prompt's text, which the composer
// sends as the user's message.
func (s *Service) ExpandPrompt(command string) (string, error) {
	s.sync()
	return s.mgr.ExpandPrompt(context.Background(), command)
}
