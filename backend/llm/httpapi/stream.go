package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/sse"
)

// Stop, returned by a stream's callback, ends the stream; the stream function returns it, so
// the caller can tell a consumer that stopped (or an answer complete on its own terms) from
// the end of the body. Like fs.SkipDir it is a signal, not a failure, hence its name.
//
//lint:ignore ST1012 a signal named as fs.SkipDir is, not an error to report
var Stop = errors.New("httpapi: stream stopped")

// SSE sends r and calls fn with the data of each server-sent event decoded into T, until:
// "data: [DONE]" (OpenAI's last event; nil), fn's error (returned as it is, Stop included), or
// the end of the body (ErrServer with Words.MidReply: the reply was cut). Events are bounded by
// sse.MaxEvent. The request is cancelled on return, which is also how a consumer that stops
// closes the connection.
func SSE[T any](ctx context.Context, c *Client, r Request, fn func(T) error) error {
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.Accept = "text/event-stream"
	resp, err := c.Do(ctx, reqCtx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	events := sse.NewReader(resp.Body)
	for {
		ev, err := events.Next()
		if err == io.EOF {
			if ctx.Err() != nil {
				return c.Wrap(ctx, ctx.Err())
			}
			return c.midReply()
		}
		if err != nil {
			return c.Wrap(ctx, err)
		}
		data := strings.TrimSpace(ev.Data)
		if data == "[DONE]" {
			return nil
		}
		if data == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			return c.malformed(err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
}

// NDJSON sends r and calls fn with each line of the answer decoded into T, until the end of
// the body (nil: NDJSON has no end marker, the caller checks for its final record), fn's
// error (returned as it is, Stop included) or a body that breaks (ErrServer with
// Words.MidReply). A line past maxLine bytes breaks it: a server
// sending bytes without a newline would otherwise grow one line until the process runs out of
// memory. The request is cancelled on return.
func NDJSON[T any](ctx context.Context, c *Client, r Request, maxLine int, fn func(T) error) error {
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.Accept = "application/x-ndjson"
	resp, err := c.Do(ctx, reqCtx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	lines := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := readLine(lines, maxLine)
		if len(strings.TrimSpace(string(line))) > 0 {
			var v T
			if jerr := json.Unmarshal(line, &v); jerr != nil {
				return c.malformed(jerr)
			}
			if ferr := fn(v); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// The server answered, then the body broke (a reset, a line without end): the
			// reply was cut, unless the caller ended it.
			if ctx.Err() != nil {
				return c.Wrap(ctx, ctx.Err())
			}
			e := c.midReply()
			e.Err = err
			return e
		}
	}
}

func (c *Client) malformed(err error) error {
	return &llm.Error{Kind: llm.ErrServer, Provider: c.Name, Message: c.Words.Malformed, Hint: c.Words.ServerHint, Err: err}
}

// readLine is bufio's ReadBytes('\n') that gives up past max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var long []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(long)+len(frag) > max {
			return nil, fmt.Errorf("the server sent a line over %d MB", max>>20)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, frag...)
			continue
		}
		return append(long, frag...), err
	}
}

// Stopped is err, nil when it is Stop: what a provider's stream returns once its consumer has
// stopped or the answer ended on its own terms.
func Stopped(err error) error {
	if errors.Is(err, Stop) {
		return nil
	}
	return err
}
