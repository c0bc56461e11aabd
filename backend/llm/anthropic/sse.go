package anthropic

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	Event string
	Data  string
}

// sseReader reads server-sent events. Lines may be of any length (tool arguments can be large).
type sseReader struct {
	r *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReaderSize(r, 64<<10)} }

// Next returns the next event, io.EOF at the end of the body. An event cut by the end of the
// body (its last line has no newline) is dropped, as the SSE spec says; one whose lines are
// complete but lack the blank line after them is kept.
func (s *sseReader) Next() (sseEvent, error) {
	var ev sseEvent
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
				return sseEvent{}, io.EOF
			}
			return sseEvent{}, err
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
