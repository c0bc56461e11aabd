// Package sse reads Server-Sent Events streams, as OpenAI-compatible and Anthropic servers send
// them: lines of any length, comments skipped, an event cut by the end of the body dropped.
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

// Reader reads server-sent events. Lines may be of any length (tool arguments can be large).
type Reader struct {
	r *bufio.Reader
}

func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Next returns the next event, io.EOF at the end of the body. An event cut by the end of the
// body (its last line has no newline) is dropped, as the SSE spec says; one whose lines are
// complete but lack the blank line after them is kept.
func (s *Reader) Next() (Event, error) {
	var ev Event
	var data []string
	have := false
	for {
		line, err := s.r.ReadString('\n')
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
			data = append(data, value)
			have = true
		case "event":
			ev.Event = value
			have = true
		}
	}
}
