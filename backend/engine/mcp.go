package engine

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
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

// commandSandbox is the boundary the settings give the processes the agent starts (MCP
// servers, external agents); settings that cannot be read give the default, the sandbox.
func (e *Engine) commandSandbox() *sandbox.Boundary {
	cfg, err := e.Settings.Config()
	if err != nil {
		cfg = config.Config{}
	}
	return session.CommandSandbox(cfg)
}

// mcpFamily is the turns' tool family of the MCP servers: the settings are applied first, so
// a server added by hand is there on the next turn.
func (e *Engine) mcpFamily() session.ToolFamily {
	fam := configured.Client(e.MCP).Family(e.complete)
	return func(reg *tools.Registry, spec session.Spec) (func(), error) {
		configured.Sync(e.MCP)
		return fam(reg, spec)
	}
}

// complete runs a server's sampling request on the settings' main model.
func (e *Engine) complete(ctx context.Context, req llm.Request) (string, string, error) {
	cfg, err := e.Settings.Config()
	if err != nil {
		return "", "", err
	}
	if cfg.Models.Main == "" {
		return "", "", errors.New("no main model is set in the settings")
	}
	p, err := e.Providers.Get()
	if err != nil {
		return "", cfg.Models.Main, err
	}
	return mcp.CompleteWith(p, cfg.Models.Main)(ctx, req)
}

// MCPServer is Tofu as an MCP server on this engine's store, library and turn runner
// (`tofu mcp serve`); run_task's turns run under approve.
func (e *Engine) MCPServer(approve permission.Mode, version string) *server.MCPServer {
	return serve.New(serve.Options{Store: e.Store, Library: e.Library, Runner: e.Runner, Memory: memory.Records(e.Memory), Approve: approve, Version: version,
		Import: func(_ context.Context, source string) (library.Info, error) { return e.Shelf.ImportRef(source, "") }})
}
