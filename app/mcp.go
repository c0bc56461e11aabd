package app

import (
	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/mcp/configured"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// MCPService runs the MCP servers of the settings and shows their state; the work is
// backend/mcp/configured's. The servers start when first needed (a turn, the settings page,
// `tofu mcp`), not with every command.
type MCPService struct {
	*configured.Service
}

// MCPServer is Tofu as an MCP server on this app's engine (`tofu mcp serve` forwarded to a
// running Tofu); run_task's turns run under approve.
func (a *App) MCPServer(approve permission.Mode, version string) *server.MCPServer {
	return a.Engine.MCPServer(approve, version)
}
