package app

import "github.com/tofu-research/tofu/backend/mcp/configured"

// MCPService runs the MCP servers of the settings and shows their state; the work is
// backend/mcp/configured's. The servers start when first needed (a turn, the settings page,
// `tofu mcp`), not with every command.
type MCPService struct {
	*configured.Service
}
