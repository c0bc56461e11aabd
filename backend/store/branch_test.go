package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// logOf builds a log from (type, payload) pairs, seqs from 1.
func logOf(t *testing.T, entries ...Entry) []Event {
	t.Helper()
	var out []Event
	for i, e := range entries {
		b, err := json.Marshal(e.Payload)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Event{Seq: uint64(i + 1), Type: e.Type, Data: b})
	}
	return out
}

func seqs(evs []Event) []uint64 {
	var out []uint64
	for _, ev := range evs {
		out = append(out, ev.Seq)
	}
	return out
}

func user(text string) Entry { return Entry{Type: EventUser, Payload: UserMessage{Text: text}} }
func reply(text string) Entry {
	return Entry{Type: EventAssistant, Payload: AssistantMessage{Text: text}}
}
func fork(from uint64) Entry {
	return Entry{Type: EventBranch, Payload: Branch{From: from, Reason: BranchEdit}}
}
func switchTo(head uint64) Entry {
	return Entry{Type: EventBranchSwitch, Payload: BranchSwitch{Head: head}}
}

func TestActivePath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		log   []Entry
		path  []uint64
		forks []Fork
	}{
		{"no branches is the whole log", []Entry{user("a"), reply("A"), user("b"), reply("B")}, []uint64{1, 2, 3, 4}, nil},
		// Edit of message 3: a branch from 2, then the new message and its reply.
		{"edit", []Entry{user("a"), reply("A"), user("b"), reply("B"), fork(2), user("b2"), reply("B2")},
			[]uint64{1, 2, 5, 6, 7}, []Fork{{At: 2, Alternatives: []uint64{3, 5}, Index: 1}}},
		// Edit of the first message: a branch from the root.
		{"edit the first message", []Entry{user("a"), reply("A"), fork(0), user("a2"), reply("A2")},
			[]uint64{3, 4, 5}, []Fork{{At: 0, Alternatives: []uint64{1, 3}, Index: 1}}},
		// Regenerate twice, then back to the first reply; the next message continues it.
		{"regenerate and switch back", []Entry{user("a"), reply("A"), fork(1), reply("A2"), fork(1), reply("A3"), switchTo(2), user("b"), reply("B")},
			[]uint64{1, 2, 8, 9}, []Fork{{At: 1, Alternatives: []uint64{2, 3, 5}, Index: 0}}},
		// A fork off the active path is not listed.
		{"forks on the path only", []Entry{user("a"), reply("A"), fork(1), reply("A2"), user("b"), reply("B"), fork(4), reply("B2"), switchTo(2)},
			[]uint64{1, 2}, []Fork{{At: 1, Alternatives: []uint64{2, 3}, Index: 0}}},
		// A branch or switch to an event not before it (or to a switch) is ignored.
		{"invalid branches are ignored", []Entry{user("a"), fork(9), reply("A"), switchTo(7), switchTo(4)},
			[]uint64{1, 3}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			log := logOf(t, c.log...)
			tree := TreeOf(log)
			if got := seqs(tree.Path(log)); !reflect.DeepEqual(got, c.path) {
				t.Fatalf("path = %v, want %v", got, c.path)
			}
			if got := tree.Forks(); !reflect.DeepEqual(got, c.forks) {
				t.Fatalf("forks = %+v, want %+v", got, c.forks)
			}
		})
	}
}

func TestTipIsTheLatestEventOfABranch(t *testing.T) {
	t.Parallel()
	log := logOf(t, user("a"), reply("A"), user("b"), reply("B"), fork(2), user("b2"), reply("B2"), switchTo(4), user("c"))
	tree := TreeOf(log)
	if tip := tree.Tip(3); tip != 9 {
		t.Fatalf("tip of the first branch = %d, want 9 (the message sent after switching back)", tip)
	}
	if tip := tree.Tip(5); tip != 7 {
		t.Fatalf("tip of the edited branch = %d, want 7", tip)
	}
	if got := seqs(tree.Path(log)); !reflect.DeepEqual(got, []uint64{1, 2, 3, 4, 9}) {
		t.Fatalf("path = %v", got)
	}
}

// TestBranchesInTheStore: branch events are ordinary appends; the log keeps every version.
func TestBranchesInTheStore(t *testing.T) {
	t.Parallel()
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, _ := st.CreateSession("")
	for _, e := range []Entry{user("a"), reply("A"), fork(1), reply("A2")} {
		if _, err := st.Append(info.ID, e.Type, e.Payload); err != nil {
			t.Fatal(err)
		}
	}
	evs, _ := st.Events(info.ID)
	if len(evs) != 4 {
		t.Fatalf("%d events: nothing may be overwritten", len(evs))
	}
	if got := seqs(ActivePath(evs)); !reflect.DeepEqual(got, []uint64{1, 3, 4}) {
		t.Fatalf("path = %v", got)
	}
}
