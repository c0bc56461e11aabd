package app

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/gateway"
	"github.com/tofu-research/tofu/backend/mcp"
	"github.com/tofu-research/tofu/backend/mcp/configured"
	"github.com/tofu-research/tofu/backend/mcp/serve"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// MCPService runs the MCP servers of the settings and shows their state; the work is
// backend/mcp/configured's. The servers start when first needed (a turn, the settings page,
// `tofu mcp`), not with every command.
type MCPService struct {
	*configured.Service
	settings  *SettingsService
	providers *gateway.Cache
}

func newMCPService(settings *SettingsService, providers *gateway.Cache, emit Emitter) *MCPService {
	s := &MCPService{settings: settings, providers: providers, Service: configured.New(configured.Options{
		File: settings.file, Config: settings.config, Changed: settings.changed, Emit: emit.Emit,
		Sandbox: func() *sandbox.Boundary { return commandSandbox(settings) },
	})}
	settings.onUpdate(func() { configured.SettingsChanged(s.Service) })
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

// family is the turns' tool family: the settings are applied first, so a server added by hand
// is there on the next turn.
func (s *MCPService) family() session.ToolFamily {
	fam := configured.Client(s.Service).Family(s.complete)
	return func(reg *tools.Registry, spec session.Spec) (func(), error) {
		configured.Sync(s.Service)
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
	p, err := s.providers.Get()
	if err != nil {
		return "", cfg.Models.Main, err
	}
	return mcp.CompleteWith(p, cfg.Models.Main)(ctx, req)
}

// MCPServer is Tofu as an MCP server on this app's store, library and turn runner
// (`tofu mcp serve`); run_task's turns run under approve.
func (a *App) MCPServer(approve permission.Mode, version string) *server.MCPServer {
	return serve.New(serve.Options{Store: a.store, Library: a.Papers.lib, Runner: a.Runner, Memory: memory.Records(a.Memory.Panel), Approve: approve, Version: version,
		Import: func(_ context.Context, source string) (library.Info, error) { return a.Papers.ImportRef(source, "") }})
}
