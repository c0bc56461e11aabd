package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	mcpserve "github.com/tofu-research/tofu/backend/mcp/serve"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/usersock"
)

// `tofu mcp serve` beside a running Tofu: the MCP server runs in the instance, on its store and
// runner (run_task's turns show in its window live), and the command line only carries the
// client's JSON-RPC messages over the command socket, one per frame.

// mcp serves a forwarded `tofu mcp serve` until the client leaves or the instance stops.
func (in *instance) mcp(c *usersock.Conn, r forwardMCPRequest) error {
	mode, err := permission.ParseMode(r.Approve)
	if err != nil {
		return err
	}
	if mode == permission.ModeAsk {
		return errors.New("--approve ask needs a person at Tofu's side: use safe, never or all")
	}
	// The instance stopping ends the session: its Recv then fails.
	defer context.AfterFunc(in.ctx, func() { c.Close() })()
	return mcpserve.ServeMessages(in.ctx, in.a.MCPServer(mode, Version), forwardedMessages{c})
}

// forwardedMessages is the instance's side of a forwarded MCP session.
type forwardedMessages struct{ c *usersock.Conn }

func (f forwardedMessages) Recv() (json.RawMessage, error) {
	for {
		var in forwardInput
		if err := f.c.Recv(&in); err != nil {
			return nil, err
		}
		if len(in.MCP) > 0 {
			return in.MCP, nil
		}
	}
}

func (f forwardedMessages) Send(m json.RawMessage) error { return f.c.Send(forwardOutput{MCP: m}) }

// forwardMCP relays an MCP client on stdin/stdout to the running Tofu behind c: each line of
// stdin is a message to Tofu's server, each of its messages a line on stdout. It returns when
// stdin ends (the client left) or the instance closes the connection.
func forwardMCP(c *usersock.Conn, approve string, stdin io.Reader, stdout io.Writer) error {
	defer c.Close()
	if err := c.Send(forwardRequest{Version: forwardVersion, Tofu: Version, MCP: &forwardMCPRequest{Approve: approve}}); err != nil {
		return err
	}
	in := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(stdin, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if msg := trimLine(line); len(msg) > 0 {
				if !json.Valid(msg) {
					fmt.Fprintf(os.Stderr, "tofu mcp serve: a line on stdin is not JSON, skipped: %.80q\n", msg)
				} else if serr := c.Send(forwardInput{MCP: msg}); serr != nil {
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
			var f forwardOutput
			if err := c.Recv(&f); err != nil {
				out <- fmt.Errorf("the running Tofu closed the MCP session: %w", err)
				return
			}
			if f.Error != nil {
				out <- f.Error.err()
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
