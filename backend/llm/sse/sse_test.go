package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	t.Parallel()
	body := ": keep-alive\n\nevent: message_start\ndata: {\"a\":1}\n\ndata: line one\r\ndata: line two\n\ndata: " +
		strings.Repeat("x", 200_000) + "\n\ndata: cut without newline"
	r := NewReader(strings.NewReader(body))
	var got []Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if len(got) != 3 || got[0].Event != "message_start" || got[0].Data != `{"a":1}` ||
		got[1].Data != "line one\nline two" || len(got[2].Data) != 200_000 {
		t.Fatalf("events = %d: %+v", len(got), got[:min(2, len(got))])
	}
}

// A server that sends bytes without end, no newline, made the reader grow one line until the
// process ran out of memory (fatal). An event is refused past MaxEvent, its lines together
// (checked at 1 MB: 64 MB through the reader took 15 s under the race detector).
func TestEventPastTheBound(t *testing.T) {
	t.Parallel()
	if got := NewReader(strings.NewReader("")).max; got != MaxEvent {
		t.Fatalf("a reader's bound is %d, want MaxEvent", got)
	}
	const max = 1 << 20
	bounded := func(r io.Reader) *Reader {
		rd := NewReader(r)
		rd.max = max
		return rd
	}
	for name, body := range map[string]io.Reader{
		"one line":   io.LimitReader(repeat('a'), max+1<<18),
		"many lines": io.LimitReader(repeat('\n', "data: "+strings.Repeat("a", 1<<16)), max+2<<18),
	} {
		if _, err := bounded(body).Next(); !errors.Is(err, ErrEventTooLarge) {
			t.Errorf("%s: %v, want ErrEventTooLarge", name, err)
		}
	}
	// Just under the bound is read.
	ev, err := bounded(strings.NewReader("data: " + strings.Repeat("a", max-8) + "\n\n")).Next()
	if err != nil || len(ev.Data) != max-8 {
		t.Fatalf("an event under the bound: %d bytes, %v", len(ev.Data), err)
	}
}

// repeat reads as line, then c, without end.
func repeat(c byte, line ...string) io.Reader {
	return &repeater{unit: []byte(strings.Join(line, "") + string(c))}
}

type repeater struct {
	unit []byte
	at   int
}

// Read fills p (a byte at a time, 64 MB took 30 s under the race detector).
func (r *repeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.unit[r.at:])
		r.at = (r.at + c) % len(r.unit)
		n += c
	}
	return n, nil
}
