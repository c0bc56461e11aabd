package store

import "sort"

// Branches: editing a sent message, regenerating a reply and moving between the versions never
// rewrite the log. Each event hangs below the event that was the conversation's head when it
// was appended, so the log is a tree; a branch event starts a new child of an earlier event
// (the conversation goes on from there), and a branch_switch event moves the head to the tip
// of another branch. The active path (ActivePath) is the chain from the root to the head: the
// transcript shows it and the model reads it. A log without either event is one path, itself.

const (
	// EventBranch (Branch) forks the conversation after event From: what follows continues
	// from there, and the events after From on the old path stay in the log, on their branch.
	EventBranch EventType = "branch"
	// EventBranchSwitch (BranchSwitch) makes the path ending at event Head the active one.
	EventBranchSwitch EventType = "branch_switch"
)

// BranchReason says why a branch was made (Branch.Reason).
type BranchReason string

const (
	BranchEdit       BranchReason = "edit"       // the user edited a sent message: a new version of it follows
	BranchRegenerate BranchReason = "regenerate" // the user asked for another reply to the same message
)

// Branch forks a conversation: the event's parent is From (0: the start of the log).
type Branch struct {
	From   uint64       `json:"from"`
	Reason BranchReason `json:"reason"`
}

// BranchSwitch moves the conversation's head to the event Head (the tip of a branch).
type BranchSwitch struct {
	Head uint64 `json:"head"`
}

// Tree is the shape of a log with branches: each event's parent and the head.
type Tree struct {
	parent   map[uint64]uint64
	children map[uint64][]uint64 // in seq order
	head     uint64
	branched bool // the log has a branch or switch event
}

// TreeOf reads the shape of a log (its events in seq order). A branch or switch naming an
// event that is not before it (or a switch event) is ignored, on no path: the log goes on
// from the head.
func TreeOf(events []Event) *Tree {
	t := &Tree{parent: make(map[uint64]uint64, len(events)), children: map[uint64][]uint64{}}
	for _, ev := range events {
		switch ev.Type {
		case EventBranch:
			var b Branch
			if ev.Decode(&b) == nil && t.valid(b.From, ev.Seq) {
				t.link(ev.Seq, b.From)
				t.head = ev.Seq
			}
			t.branched = true
			continue // an invalid branch is on no path
		case EventBranchSwitch:
			var s BranchSwitch
			if ev.Decode(&s) == nil && s.Head > 0 && t.valid(s.Head, ev.Seq) {
				t.head = s.Head
			}
			t.branched = true
			continue // never on a path
		}
		t.link(ev.Seq, t.head)
		t.head = ev.Seq
	}
	return t
}

// valid says whether seq (0: the root) can be the parent or head named by event at.
func (t *Tree) valid(seq, at uint64) bool {
	if seq >= at {
		return false
	}
	_, ok := t.parent[seq]
	return seq == 0 || ok
}

func (t *Tree) link(seq, parent uint64) {
	t.parent[seq] = parent
	t.children[parent] = append(t.children[parent], seq)
}

// Head is the last event of the active path (0: none).
func (t *Tree) Head() uint64 { return t.head }

// Parent is the event seq hangs below (0: the root), and whether seq is in the tree.
func (t *Tree) Parent(seq uint64) (uint64, bool) {
	p, ok := t.parent[seq]
	return p, ok
}

// Children are the events that hang below seq (0: the root), in seq order.
func (t *Tree) Children(seq uint64) []uint64 { return t.children[seq] }

// Tip is the latest event of the subtree under seq (seq itself when nothing follows it): the
// head a switch to that branch moves to.
func (t *Tree) Tip(seq uint64) uint64 {
	tip := seq
	stack := []uint64{seq}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		tip = max(tip, n)
		stack = append(stack, t.children[n]...)
	}
	return tip
}

// OnPath reports which events are on the active path.
func (t *Tree) OnPath() map[uint64]bool {
	on := map[uint64]bool{}
	for n := t.head; n != 0; n = t.parent[n] {
		on[n] = true
	}
	return on
}

// Path filters events (the log the tree was read from, or a part of it) to the active path.
func (t *Tree) Path(events []Event) []Event {
	if !t.branched {
		return events
	}
	on := t.OnPath()
	out := make([]Event, 0, len(on))
	for _, ev := range events {
		if on[ev.Seq] {
			out = append(out, ev)
		}
	}
	return out
}

// ActivePath is the events of the log's active path, in order: the conversation as the
// transcript shows it and the model reads it.
func ActivePath(events []Event) []Event { return TreeOf(events).Path(events) }

// Fork is a place where the active path could go another way: the event At has several
// children, and the path goes through the Index-th of Alternatives (0-based, in seq order).
type Fork struct {
	At           uint64   `json:"at"`
	Alternatives []uint64 `json:"alternatives"` // the first event of each branch
	Index        int      `json:"index"`
}

// Forks lists the forks along the active path, in order.
func (t *Tree) Forks() []Fork {
	on := t.OnPath()
	var out []Fork
	for at, kids := range t.children {
		if len(kids) < 2 || (at != 0 && !on[at]) {
			continue
		}
		for i, k := range kids {
			if on[k] {
				out = append(out, Fork{At: at, Alternatives: append([]uint64(nil), kids...), Index: i})
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}
