// Package sse reads Server-Sent Events streams, as OpenAI-compatible and Anthropic servers send
// them: lines of any length up to a bound, comments skipped, an event cut by the end of the body dropped.
package sse

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// Event is one server-sent event.
type Event struct {
	Event string
	Data  string
}

// MaxEvent bounds one event, its lines together. Lines may be long (a tool call's arguments
// can come in one event, an image as base64), but not endless: a server sending bytes without
// a newline made the reader grow one line until the process ran out of memory, a fatal error
// that takes the window down (4 GB in 3 s from a local server). A model writes at most a
// few hundred thousand tokens an answer (about 1 MB), an inline image a few MB; 64 MB is
// far past both.
const MaxEvent = 64 << 20

// ErrEventTooLarge is what Next returns for an event past MaxEvent.
var ErrEventTooLarge = errors.New("the server sent an event over 64 MB")

// Reader reads server-sent events. Lines may be of any length up to MaxEvent.
type Reader struct {
	r   *bufio.Reader
	max int // MaxEvent (a test's reader may be given less)
}

func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: MaxEvent} }

// readLine is bufio's ReadString('\n') that gives up past max bytes.
func (s *Reader) readLine(max int) (string, error) {
	var long []byte
	for {
		frag, err := s.r.ReadSlice('\n')
		if len(long)+len(frag) > max {
			return "", ErrEventTooLarge
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, frag...)
			continue
		}
		if long == nil {
			return string(frag), err
		}
		return string(append(long, frag...)), err
	}
}

// Next returns the next event, io.EOF at the end of the body. An event cut by the end of the
// body (its last line has no newline) is dropped, as the SSE spec says; one whose lines are
// complete but lack the blank line after them is kept.
func (s *Reader) Next() (Event, error) {
	var ev Event
	var data []string
	have := false
	size := 0
	for {
		line, err := s.readLine(s.max - size)
		if errors.Is(err, ErrEventTooLarge) {
			return Event{}, err
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				if line == "" && have {
					ev.Data = strings.Join(data, "\n")
					return ev, nil
				}
				return Event{}, io.EOF
			}
			return Event{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if have {
				ev.Data = strings.Join(data, "\n")
				return ev, nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") { // comment, e.g. a keep-alive
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			size += len(value) + 1
			data = append(data, value)
			have = true
		case "event":
			ev.Event = value
			have = true
		}
	}
}
