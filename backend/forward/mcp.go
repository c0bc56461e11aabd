package forward

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	mcpserve "github.com/tofu-research/tofu/backend/mcp/serve"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/usersock"
)

// `tofu mcp serve` beside a running Tofu: the MCP server runs in the instance, on its store and
// runner (run_task's turns show in its window live), and the command line only carries the
// client's JSON-RPC messages over the command socket, one per frame.

// mcp serves a forwarded `tofu mcp serve` until the client leaves or the instance stops.
func (in *instance) mcp(c *usersock.Conn, r MCPRequest) error {
	mode, err := permission.ParseMode(r.Approve)
	if err != nil {
		return err
	}
	if mode == permission.ModeAsk {
		return errors.New("--approve ask needs a person at Tofu's side: use safe, never or all")
	}
	// The instance stopping ends the session: its Recv then fails.
	defer context.AfterFunc(in.ctx, func() { c.Close() })()
	return mcpserve.ServeMessages(in.ctx, in.app.MCPServer(mode), mcpMessages{c})
}

// mcpMessages is the instance's side of a forwarded MCP session.
type mcpMessages struct{ c *usersock.Conn }

func (f mcpMessages) Recv() (json.RawMessage, error) {
	for {
		var in Input
		if err := f.c.Recv(&in); err != nil {
			return nil, err
		}
		if len(in.MCP) > 0 {
			return in.MCP, nil
		}
	}
}

func (f mcpMessages) Send(m json.RawMessage) error { return f.c.Send(Output{MCP: m}) }

// MCP relays an MCP client on stdin/stdout to the running Tofu: each line of stdin is a message
// to Tofu's server, each of its messages a line on stdout; a line that is not JSON is skipped
// with a word on errOut. It returns when stdin ends (the client left) or the instance closes
// the connection.
func (c *Client) MCP(approve string, stdin io.Reader, stdout, errOut io.Writer) error {
	defer c.Close()
	if err := c.request(Request{MCP: &MCPRequest{Approve: approve}}); err != nil {
		return err
	}
	in := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(stdin, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if msg := trimLine(line); len(msg) > 0 {
				if !json.Valid(msg) {
					fmt.Fprintf(errOut, "tofu mcp serve: a line on stdin is not JSON, skipped: %.80q\n", msg)
				} else if serr := c.conn.Send(Input{MCP: msg}); serr != nil {
					in <- serr
					return
				}
			}
			if err != nil {
				in <- nil // the client closed stdin: it is done
				return
			}
		}
	}()
	out := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(stdout)
		for {
			var f Output
			if err := c.conn.Recv(&f); err != nil {
				out <- fmt.Errorf("the running Tofu closed the MCP session: %w", err)
				return
			}
			if f.Error != nil {
				out <- f.Error.Err()
				return
			}
			if len(f.MCP) == 0 {
				continue
			}
			w.Write(f.MCP)
			w.WriteByte('\n')
			if err := w.Flush(); err != nil {
				out <- err
				return
			}
		}
	}()
	select {
	case err := <-in:
		return err
	case err := <-out:
		return err
	}
}

func trimLine(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
