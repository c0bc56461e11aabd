package store

import (
	"strings"
	"sync"
	"testing"
)

// TestAppendBatch: a batch lands in order with gapless seqs after earlier events, in one
// transaction, and subscribers hear of each event once all of the batch is readable.
func TestAppendBatch(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	info, _ := s.CreateSession("b")
	if _, err := s.Append(info.ID, EventUser, UserMessage{Text: "q"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var heard []uint64
	cancel := s.Subscribe(func(ev Event) {
		evs, err := s.Events(ev.Session)
		if err != nil || len(evs) != 4 {
			t.Errorf("event %d published before its batch was readable (%d events, %v)", ev.Seq, len(evs), err)
		}
		mu.Lock()
		heard = append(heard, ev.Seq)
		mu.Unlock()
	})
	defer cancel()
	evs, err := s.AppendBatch(info.ID,
		Entry{EventAssistant, AssistantMessage{Text: "a"}},
		Entry{EventUsage, map[string]int{"input_tokens": 3}},
		Entry{EventNotice, Notice{Text: "n"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Seq != 2 || evs[1].Seq != 3 || evs[2].Seq != 4 || evs[2].Type != EventNotice {
		t.Fatalf("batch = %+v", evs)
	}
	if len(heard) != 3 || heard[0] != 2 || heard[2] != 4 {
		t.Fatalf("subscriber heard %v", heard)
	}
	got, _ := s.Session(info.ID)
	if got.Events != 4 {
		t.Fatalf("meta.Events = %d", got.Events)
	}
	if evs, err := s.AppendBatch(info.ID); err != nil || len(evs) != 0 {
		t.Fatalf("empty batch = %v, %v", evs, err)
	}
}

// TestLargeBatchIsSplit: a batch over one transaction's size is written in several, still in
// order and gapless; an event bigger than the soft limit goes alone.
func TestLargeBatchIsSplit(t *testing.T) {
	t.Parallel()
	s, _ := openTemp(t)
	info, _ := s.CreateSession("big")
	big := strings.Repeat("x", 300<<10)
	var entries []Entry
	for range 8 {
		entries = append(entries, Entry{EventToolResult, ToolResult{CallID: "c", Text: big}})
	}
	evs, err := s.AppendBatch(info.ID, entries...)
	if err != nil {
		t.Fatal(err)
	}
	read, _ := s.Events(info.ID)
	if len(evs) != 8 || len(read) != 8 {
		t.Fatalf("wrote %d, read %d", len(evs), len(read))
	}
	for i, ev := range read {
		if ev.Seq != uint64(i+1) || len(ev.Data) < len(big) {
			t.Fatalf("event %d: seq %d, %d bytes", i, ev.Seq, len(ev.Data))
		}
	}
}

// TestAppendToClosedStore: a failed append says so; nothing is published.
func TestAppendToClosedStore(t *testing.T) {
	t.Parallel()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	info, _ := s.CreateSession("c")
	published := 0
	s.Subscribe(func(Event) { published++ })
	s.Close()
	if _, err := s.AppendBatch(info.ID, Entry{EventUser, UserMessage{Text: "x"}}); err == nil {
		t.Fatal("append to a closed store succeeded")
	}
	if published != 0 {
		t.Fatalf("%d events published", published)
	}
}
