package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// Requests answers what a server asks of Tofu: sampling (a completion from the user's model,
// after the user approved it) and elicitation (a form the user fills in). Each call may bring
// its own (the turn that made it, which can ask its user); the manager's answers the others.
type Requests interface {
	Sample(ctx context.Context, server string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
	Elicit(ctx context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
}

// handlers routes a server's requests to the call in flight that caused them (the newest),
// else to the manager's Requests.
type handlers struct {
	server   string
	conn     *conn
	fallback Requests
}

func (h *handlers) route() Requests {
	if h.conn != nil {
		if r := h.conn.current(); r != nil {
			return r
		}
	}
	return h.fallback
}

// errNobody refuses a request no one can answer (no call of a turn with a user in flight).
var errNobody = errors.New("Tofu cannot ask its user now (no conversation is waiting on this server)")

// CreateMessage implements the client's sampling handler.
func (h *handlers) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	r := h.route()
	if r == nil {
		return nil, fmt.Errorf("sampling from MCP server %s: %w", h.server, errNobody)
	}
	return r.Sample(ctx, h.server, req)
}

// Elicit implements the client's elicitation handler. Nobody to ask declines.
func (h *handlers) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	r := h.route()
	if r == nil {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
	}
	return r.Elicit(ctx, h.server, req)
}
