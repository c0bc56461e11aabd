package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// conn is one live connection to a server: the client, its process for stdio, the tools it
// listed, and the calls in flight (for their progress, and for the sampling and elicitation
// requests the server makes while they run).
type conn struct {
	name   string
	client *client.Client
	proc   *process // nil over HTTP
	info   mcp.Implementation
	proto  string
	end    context.CancelFunc // ends the transport's context

	mu      sync.Mutex
	tools   []mcp.Tool
	prompts []mcp.Prompt
	calls   []*flight // in flight, oldest first
	token   atomic.Int64
	onTools func() // the tool list changed

	toolsList, promptsList relist // re-listing on list_changed notifications
}

// flight is a call in progress.
type flight struct {
	token    string
	progress func(Progress)
	requests Requests
}

// Progress is a progress notification of a call.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// dial connects to s and completes the handshake under ctx (bounded by the startup timeout).
// A stdio server's command runs inside box when it is not nil.
func dial(ctx context.Context, name string, s config.MCPServer, spawner *procgroup.Spawner, box *sandbox.Boundary, handlers *handlers) (*conn, error) {
	c := &conn{name: name}
	handlers.conn = c
	var tr transport.Interface
	switch s.Transport() {
	case config.MCPStdio:
		p, io, err := startProcess(name, s, spawner, box)
		if err != nil {
			return nil, err
		}
		c.proc, tr = p, io
	case config.MCPSSE:
		t, err := transport.NewSSE(s.URL, transport.WithHeaders(s.Headers), transport.WithHTTPClient(&http.Client{Transport: boundedBodies{http.DefaultTransport}}))
		if err != nil {
			return nil, fmt.Errorf("MCP server %s: %w", name, err)
		}
		tr = t
	default:
		t, err := transport.NewStreamableHTTP(s.URL, transport.WithHTTPHeaders(s.Headers), transport.WithHTTPBasicClient(&http.Client{Transport: boundedBodies{http.DefaultTransport}}))
		if err != nil {
			return nil, fmt.Errorf("MCP server %s: %w", name, err)
		}
		tr = t
	}
	// No roots: a filesystem server would replace the directories its arguments allow with
	// them.
	c.client = client.NewClient(tr, client.WithSamplingHandler(handlers), client.WithElicitationHandler(handlers))
	c.client.OnNotification(c.notified)
	fail := func(err error) (*conn, error) {
		defer c.close()
		if c.proc != nil {
			// Stdout ends a moment before the exit status is known.
			grace := exitGrace
			if errors.Is(err, context.DeadlineExceeded) {
				grace = 0 // it is alive and silent
			}
			wait, stop := context.WithTimeout(context.Background(), grace)
			exited := c.proc.waitExit(wait)
			stop()
			if exited {
				return nil, c.proc.exitError(name)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("MCP server %s %w (%s)%s", name, errStartup, s.Startup(), c.proc.explain())
			}
			return nil, fmt.Errorf("MCP server %s: %w%s", name, err, c.proc.explain())
		}
		var auth *transport.AuthorizationRequiredError
		var oauth *transport.OAuthAuthorizationRequiredError
		if errors.As(err, &auth) || errors.As(err, &oauth) {
			return nil, fmt.Errorf("MCP server %s at %s: %w: give it a token in the server's \"headers\" (\"Authorization\": \"Bearer …\")", name, s.URL, err)
		}
		return nil, fmt.Errorf("MCP server %s at %s: %w", name, s.URL, err)
	}
	// The transport lives as long as the connection (it answers the server's requests under
	// this context, and an SSE stream is read under it); the handshake has the startup bound.
	life, end := context.WithCancel(context.WithoutCancel(ctx))
	c.end = end
	ctx, cancel := context.WithTimeout(ctx, s.Startup())
	defer cancel()
	startCtx, stopStart := context.WithTimeout(life, s.Startup())
	defer stopStart()
	if err := startWithin(startCtx, life, c.client); err != nil {
		return fail(err)
	}
	// The handshake runs in its own goroutine so that a process that exits ends the wait at
	// once instead of at the startup timeout.
	type initDone struct {
		res *mcp.InitializeResult
		err error
	}
	done := make(chan initDone, 1)
	go func() {
		req := mcp.InitializeRequest{}
		req.Params.ClientInfo = mcp.Implementation{Name: "tofu", Version: Version}
		req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
		res, err := c.client.Initialize(ctx, req)
		if err == nil {
			c.info, c.proto = res.ServerInfo, res.ProtocolVersion
			err = c.listTools(ctx)
		}
		if err == nil {
			err = c.listPrompts(ctx)
		}
		done <- initDone{res, err}
	}()
	var exited <-chan struct{}
	if c.proc != nil {
		exited = c.proc.exited
	}
	select {
	case d := <-done:
		if d.err != nil {
			return fail(d.err)
		}
	case <-exited:
		return fail(errors.New("exited"))
	}
	return c, nil
}

// startWithin starts cl's transport under life, giving up when bound ends first (an HTTP
// server that does not answer).
func startWithin(bound, life context.Context, cl *client.Client) error {
	done := make(chan error, 1)
	go func() { done <- cl.Start(life) }()
	select {
	case err := <-done:
		return err
	case <-bound.Done():
		return bound.Err()
	}
}

// exitGrace is how long a server whose stdout closed is given to exit, for its status.
const exitGrace = 2 * time.Second

// listTimeout bounds reading a changed tool list.
const listTimeout = 30 * time.Second

// Version is the client and server version Tofu announces.
var Version = "0.1"

// listTools reads the server's tools (every page).
func (c *conn) listTools(ctx context.Context) error {
	if c.client.GetServerCapabilities().Tools == nil {
		return nil
	}
	res, err := c.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	c.mu.Lock()
	c.tools = res.Tools
	c.mu.Unlock()
	return nil
}

// Tools returns the tools the server listed last.
func (c *conn) Tools() []mcp.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]mcp.Tool(nil), c.tools...)
}

// notified handles the server's notifications: progress of a call, a changed tool list.
func (c *conn) notified(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationToolsListChanged):
		c.toolsList.run(func() {
			ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
			defer cancel()
			if c.listTools(ctx) == nil {
				c.mu.Lock()
				f := c.onTools
				c.mu.Unlock()
				if f != nil {
					f()
				}
			}
		})
	case string(mcp.MethodNotificationPromptsListChanged):
		c.promptsList.run(func() {
			ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
			defer cancel()
			_ = c.listPrompts(ctx)
		})
	case "notifications/progress":
		f := n.Params.AdditionalFields
		tok := fmt.Sprint(f["progressToken"])
		p := Progress{Progress: num(f["progress"]), Total: num(f["total"])}
		p.Message, _ = f["message"].(string)
		c.mu.Lock()
		var fn func(Progress)
		for _, fl := range c.calls {
			if fl.token == tok {
				fn = fl.progress
			}
		}
		c.mu.Unlock()
		if fn != nil {
			fn(p)
		}
	}
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return 0
}

// call runs tool with args, sending fl's progress and routing the server's requests during
// the call to fl.requests. Cancelling ctx cancels the call on the server.
func (c *conn) call(ctx context.Context, tool string, args map[string]any, fl *flight) (*mcp.CallToolResult, error) {
	fl.token = fmt.Sprintf("tofu-%d", c.token.Add(1))
	c.mu.Lock()
	c.calls = append(c.calls, fl)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		for i, x := range c.calls {
			if x == fl {
				c.calls = append(c.calls[:i], c.calls[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	req.Params.Meta = &mcp.Meta{ProgressToken: fl.token}
	return c.client.CallTool(ctx, req)
}

// current is the newest call in flight with requests to answer, or nil.
func (c *conn) current() Requests {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.calls) - 1; i >= 0; i-- {
		if c.calls[i].requests != nil {
			return c.calls[i].requests
		}
	}
	return nil
}

// close ends the connection and, for stdio, the process group.
func (c *conn) close() {
	if c.client != nil {
		_ = c.client.Close()
	}
	if c.end != nil {
		c.end()
	}
	if c.proc != nil {
		c.proc.stop()
	}
}
