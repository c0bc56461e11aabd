package mcp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
)

// boundedBodies bounds what a remote server's answers can make the transport hold, as
// junkWatch does for a process's stdout: the transport reads an SSE line, and a JSON answer,
// whole before parsing it, so a server sending bytes without end ran the process out of
// memory (fatal). An event stream is bounded by event (the bytes between blank lines), any
// other body as a whole, both to maxMessage.
type boundedBodies struct{ base http.RoundTripper }

func (b boundedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	events := strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
	resp.Body = &boundedBody{rc: resp.Body, events: events}
	return resp, nil
}

// errAnswerTooLarge ends the reading of a remote server's answer past maxMessage.
var errAnswerTooLarge = errors.New("an answer passed 64 MB without an end")

// boundedBody fails a read once more than maxMessage bytes came without an end: the end of an
// event (a blank line) for an event stream, the end of the body for anything else.
type boundedBody struct {
	rc      io.ReadCloser
	events  bool
	n       int  // bytes since the last end
	newText bool // the current line has more than a \r
	err     error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	data := p[:n]
	b.n += n
	if b.events {
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			line := data
			if i >= 0 {
				line = data[:i]
			}
			if len(bytes.TrimRight(line, "\r")) > 0 {
				b.newText = true
			}
			if i < 0 {
				break
			}
			if !b.newText { // a blank line: the event ended here
				b.n = len(data) - i - 1
			}
			b.newText = false
			data = data[i+1:]
		}
	}
	if b.n > maxMessage {
		b.err = errAnswerTooLarge
		return 0, b.err
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
