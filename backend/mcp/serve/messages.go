package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Messages is a connection carrying one JSON-RPC message per Recv and Send: `tofu mcp serve`
// forwarded over the command socket to the Tofu that holds the database. Send must be safe
// to call from several goroutines.
type Messages interface {
	Recv() (json.RawMessage, error)
	Send(json.RawMessage) error
}

var sessionCount atomic.Int64

// ServeMessages serves s to one client over c until c's Recv fails (the client left; the
// caller closes c when ctx ends), then cancels the requests still running and waits for them. Unlike mcp-go's stdio
// server, whose session is one per process, each call has its own session, so several
// clients can be served at once; requests run concurrently (a long run_task does not hold a
// tools/list) and notifications/cancelled cancels one.
func ServeMessages(ctx context.Context, s *server.MCPServer, c Messages) error {
	sess := &pipeSession{id: fmt.Sprintf("forwarded-%d", sessionCount.Add(1)), notes: make(chan mcp.JSONRPCNotification, 100)}
	if err := s.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register the MCP session: %w", err)
	}
	defer s.UnregisterSession(ctx, sess.id)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel below: the requests still running end first
	ctx, cancel := context.WithCancel(s.WithContext(ctx, sess))
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-sess.notes:
				if b, err := json.Marshal(n); err == nil {
					_ = c.Send(b)
				}
			}
		}
	}()
	var mu sync.Mutex
	running := map[string]context.CancelFunc{} // by the request's id
	for {
		msg, err := c.Recv()
		if err != nil {
			return nil
		}
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal(msg, &head) != nil {
			b, _ := json.Marshal(mcp.NewJSONRPCError(mcp.NewRequestId(nil), mcp.PARSE_ERROR, "not JSON", nil))
			_ = c.Send(b)
			continue
		}
		if head.Method == string(mcp.MethodNotificationCancelled) {
			mu.Lock()
			if stop := running[string(head.Params.RequestID)]; stop != nil {
				stop()
			}
			mu.Unlock()
			continue
		}
		rctx, stop := context.WithCancel(ctx)
		key := string(head.ID)
		if len(head.ID) > 0 {
			mu.Lock()
			running[key] = stop
			mu.Unlock()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer stop()
			resp := s.HandleMessage(rctx, msg)
			if len(head.ID) > 0 {
				mu.Lock()
				delete(running, key)
				mu.Unlock()
			}
			if resp == nil {
				return
			}
			if b, err := json.Marshal(resp); err == nil {
				_ = c.Send(b)
			}
		}()
	}
}

// pipeSession is one forwarded client's MCP session.
type pipeSession struct {
	id    string
	notes chan mcp.JSONRPCNotification
	ready atomic.Bool
}

func (p *pipeSession) Initialize()                                         { p.ready.Store(true) }
func (p *pipeSession) Initialized() bool                                   { return p.ready.Load() }
func (p *pipeSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return p.notes }
func (p *pipeSession) SessionID() string                                   { return p.id }
