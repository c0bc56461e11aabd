package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
)

// Editing a sent message, regenerating a reply and moving between the versions append branch
// and branch_switch events (store/branch.go); nothing of the log is rewritten. The next turn's
// journal follows the new active path, so its requests, its context manager's state and its
// compactions are those of that path alone.

// Edit records a new version of the user message userSeq (an event of the active path): a
// branch from the event before it, then the new text. Start a turn afterwards to answer it.
func (r *Runner) Edit(session string, userSeq uint64, text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("the message is empty")
	}
	if r.Busy(session) {
		return ErrBusy
	}
	path, tree, err := r.activePath(session)
	if err != nil {
		return err
	}
	if _, ok := userOnPath(path, userSeq); !ok {
		return fmt.Errorf("message %d is not a message of yours in this version of the conversation", userSeq)
	}
	parent, _ := tree.Parent(userSeq)
	_, err = r.o.Store.AppendBatch(session,
		store.Entry{Type: store.EventBranch, Payload: store.Branch{From: parent, Reason: store.BranchEdit}},
		store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: text}})
	if err != nil {
		return fmt.Errorf("record the edited message: %w", err)
	}
	return nil
}

// Regenerate records a branch for another reply to the turn the event seq belongs to (a reply
// or any event after the user message that started the turn, or that message itself): the
// conversation goes on from the user message and what rode on it (its environment, recalled
// memory, translation), so the new turn reads the same request. Start a turn afterwards.
func (r *Runner) Regenerate(session string, seq uint64) error {
	if r.Busy(session) {
		return ErrBusy
	}
	path, tree, err := r.activePath(session)
	if err != nil {
		return err
	}
	from, err := regenerateFrom(path, seq)
	if err != nil {
		return err
	}
	if from == tree.Head() {
		return nil // nothing was answered yet: the turn just runs
	}
	_, err = r.o.Store.Append(session, store.EventBranch, store.Branch{From: from, Reason: store.BranchRegenerate})
	if err != nil {
		return fmt.Errorf("record the regeneration: %w", err)
	}
	return nil
}

// SwitchBranch makes the branch that starts with event first (an alternative of a fork on the
// active path) the active one, at its latest event. It returns the new head.
func (r *Runner) SwitchBranch(session string, first uint64) (uint64, error) {
	if r.Busy(session) {
		return 0, ErrBusy
	}
	_, tree, err := r.activePath(session)
	if err != nil {
		return 0, err
	}
	ok := false
	for _, f := range tree.Forks() {
		for _, alt := range f.Alternatives {
			ok = ok || alt == first
		}
	}
	if !ok {
		return 0, fmt.Errorf("event %d does not start a branch of this version of the conversation", first)
	}
	head := tree.Tip(first)
	if head == tree.Head() {
		return head, nil
	}
	if _, err := r.o.Store.Append(session, store.EventBranchSwitch, store.BranchSwitch{Head: head}); err != nil {
		return 0, fmt.Errorf("switch branch: %w", err)
	}
	return head, nil
}

// activePath reads the session's log and returns its active path and its tree.
func (r *Runner) activePath(session string) ([]store.Event, *store.Tree, error) {
	events, err := r.o.Store.Events(session)
	if err != nil {
		return nil, nil, err
	}
	tree := store.TreeOf(events)
	return tree.Path(events), tree, nil
}

// userOnPath returns the index in path of the user message seq.
func userOnPath(path []store.Event, seq uint64) (int, bool) {
	for i, ev := range path {
		if ev.Seq == seq {
			return i, ev.Type == store.EventUser
		}
	}
	return 0, false
}

// rides lists what a turn records on its user message before the model answers: a new branch
// from the message keeps them, so the regenerated turn reads the same message.
func rides(ev store.Event, user uint64) bool {
	switch ev.Type {
	case store.EventEnvironment, store.EventMemoryRecall, store.EventRetrieval:
		return true
	case store.EventMessageTranslation:
		var tr store.MessageTranslation
		return ev.Decode(&tr) == nil && tr.Of == user
	}
	return false
}

// regenerateFrom is the event a regeneration of the turn holding seq forks from: the turn's
// user message, or the last event riding on it.
func regenerateFrom(path []store.Event, seq uint64) (uint64, error) {
	at := -1
	for i, ev := range path {
		if ev.Seq == seq {
			at = i
		}
	}
	if at < 0 {
		return 0, fmt.Errorf("event %d is not in this version of the conversation", seq)
	}
	u := at
	for u >= 0 && path[u].Type != store.EventUser {
		u--
	}
	if u < 0 {
		return 0, errors.New("there is no message of yours before this reply to answer again")
	}
	from := path[u].Seq
	for _, ev := range path[u+1:] {
		if !rides(ev, path[u].Seq) {
			break
		}
		from = ev.Seq
	}
	return from, nil
}
