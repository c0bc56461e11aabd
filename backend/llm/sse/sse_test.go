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
