// Package serve is Tofu as an MCP server (`tofu mcp serve`): the paper library, the sessions,
// and agent turns in a workspace, for other agents, over stdio or streamable HTTP.
package serve

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// Options are what the served tools work on.
type Options struct {
	Store   *store.Store
	Library *library.Library
	Runner  *session.Runner
	// Memory is the memory records' store (nil: no memory_search).
	Memory *memory.Store
	// Approve is the approval mode of run_task's turns (default safe: what would ask is
	// refused, since no one watches them).
	Approve permission.Mode
	// Version is announced to clients.
	Version string
	// Import adds a paper to the library (nil: no paper_import).
	Import Importer
}

// New returns the MCP server of Tofu's tools.
func New(o Options) *server.MCPServer {
	if o.Approve == "" {
		o.Approve = permission.ModeSafe
	}
	s := server.NewMCPServer("tofu", o.Version, server.WithToolCapabilities(false),
		server.WithInstructions("Tofu's paper library (search, read pages, ask with page citations), its conversations (list, search, read), and run_task: a Tofu agent turn in a workspace under Tofu's approval policy."))
	t := &handlers{o: o}
	for _, st := range t.tools() {
		s.AddTool(st.Tool, st.Handler)
	}
	if o.Import != nil {
		it := t.importTool()
		s.AddTool(it.Tool, it.Handler)
	}
	return s
}

// Authorized wraps h so that only requests carrying "Authorization: Bearer token" reach it.
func Authorized(token string, h http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tofu"`)
			http.Error(w, "a bearer token is required (tofu mcp serve printed it)", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// handlers implement the tools.
type handlers struct{ o Options }

func text(s string) *mcp.CallToolResult { return mcp.NewToolResultText(s) }

func fail(s string) *mcp.CallToolResult { return mcp.NewToolResultError(s) }

// progress sends a progress notification for the request, when the client asked for them.
func progress(ctx context.Context, req mcp.CallToolRequest, n float64, msg string) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return
	}
	s := server.ServerFromContext(ctx)
	if s == nil {
		return
	}
	_ = s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
		"progressToken": req.Params.Meta.ProgressToken, "progress": n, "message": msg,
	})
}
