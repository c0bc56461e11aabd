package app

import (
	"context"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/mcp"
	"github.com/tofu-research/tofu/backend/mcp/serve"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// MCPTopic carries the MCP servers ([]MCPServer) after any change of their state.
const MCPTopic = "mcp"

// MCPService runs the MCP servers of the settings and shows their state. The servers start
// when first needed (a turn, the settings page, `tofu mcp`), not with every command.
type MCPService struct {
	mgr       *mcp.Manager
	settings  *SettingsService
	providers *providerCache
	emit      Emitter

	mu      sync.Mutex
	started bool
}

func newMCPService(settings *SettingsService, providers *providerCache, emit Emitter) *MCPService {
	s := &MCPService{settings: settings, providers: providers, emit: emit}
	s.mgr = mcp.NewManager(mcp.Options{OnChange: func() {
		if s.emit != nil {
			s.emit.Emit(MCPTopic, s.views())
		}
	}, Sandbox: func() *sandbox.Boundary { return commandSandbox(settings) }})
	settings.onUpdate(func() {
		s.mu.Lock()
		on := s.started
		s.mu.Unlock()
		if on {
			s.sync()
		}
	})
	return s
}

// commandSandbox is the boundary the settings give the processes the agent starts (MCP
// servers, external agents); settings that cannot be read give the default, the sandbox.
func commandSandbox(settings *SettingsService) *sandbox.Boundary {
	cfg, err := settings.config()
	if err != nil {
		cfg = config.Config{}
	}
	return session.CommandSandbox(cfg)
}

// Manager is the client that runs the servers (`tofu mcp` uses it directly).
func (s *MCPService) Manager() *mcp.Manager {
	s.sync()
	return s.mgr
}

// sync starts, stops and restarts servers to match the settings (a hand edit of config.json
// included).
func (s *MCPService) sync() {
	cfg, err := s.settings.config()
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
func (s *MCPService) Servers() []MCPServer {
	s.sync()
	return s.views()
}

// Restart restarts a server (the settings' "Test") and returns its state once it connected or
// failed.
func (s *MCPService) Restart(name string) (MCPServer, error) {
	s.sync()
	if err := s.mgr.Restart(name); err != nil {
		return MCPServer{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcp.TurnWait)
	defer cancel()
	if err := s.mgr.WaitFor(ctx, name); err != nil {
		return MCPServer{}, err
	}
	for _, v := range s.views() {
		if v.Name == name {
			return v, nil
		}
	}
	return MCPServer{}, errors.New("the server is gone from the settings")
}

// family is the turns' tool family: the settings are applied first, so a server added by hand
// is there on the next turn.
func (s *MCPService) family() session.ToolFamily {
	fam := s.mgr.Family(s.complete)
	return func(reg *tools.Registry, spec session.Spec) (func(), error) {
		s.sync()
		return fam(reg, spec)
	}
}

// complete runs a server's sampling request on the settings' main model.
func (s *MCPService) complete(ctx context.Context, req llm.Request) (string, string, error) {
	cfg, err := s.settings.config()
	if err != nil {
		return "", "", err
	}
	if cfg.Models.Main == "" {
		return "", "", errors.New("no main model is set in the settings")
	}
	p, err := s.providers.get()
	if err != nil {
		return "", cfg.Models.Main, err
	}
	return mcp.CompleteWith(p, cfg.Models.Main)(ctx, req)
}

// Resources lists the connected servers' resources and resource templates (the composer's
// attach menu); a server that failed to list is named in Errors.
func (s *MCPService) Resources() mcp.ResourceList {
	s.sync()
	ctx, cancel := context.WithTimeout(context.Background(), mcp.TurnWait)
	defer cancel()
	s.mgr.Wait(ctx)
	return s.mgr.Resources(ctx)
}

// ReadResource reads a server's resource (a template's URI filled with vars) and returns it as
// an attachment for ChatService.SendAttached.
func (s *MCPService) ReadResource(server, uri string, vars map[string]string) (store.Attachment, error) {
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

// close stops every server.
func (s *MCPService) close() { s.mgr.Close() }

// MCPServer is Tofu as an MCP server on this app's store, library and turn runner
// (`tofu mcp serve`); run_task's turns run under approve.
func (a *App) MCPServer(approve permission.Mode, version string) *server.MCPServer {
	return serve.New(serve.Options{Store: a.store, Library: a.Papers.lib, Runner: a.Runner, Memory: a.Memory.mem, Approve: approve, Version: version,
		Import: func(_ context.Context, source string) (library.Info, error) { return a.Papers.ImportRef(source, "") }})
}

// Prompts lists the connected servers' prompts: the composer offers them as /server:name.
func (s *MCPService) Prompts() []mcp.PromptInfo {
	s.sync()
	return s.mgr.Prompts()
}

// ExpandPrompt turns "/server:prompt arguments" into the prompt's text, which the composer
// sends as the user's message.
func (s *MCPService) ExpandPrompt(command string) (string, error) {
	s.sync()
	return s.mgr.ExpandPrompt(context.Background(), command)
}
