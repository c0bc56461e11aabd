// Package desk is the sidebar's conversation management: the list of conversations, created,
// renamed, deleted and searched; folders, pins and the trash (delete with undo); duplicates,
// /clear and references to another conversation; a conversation's switches (workspace, mode,
// recall, thinking, translation, tool families); its workspace's files for @-mentions and its
// trace's export. The window's SessionService (app) is Desk bound to the user interface: every
// exported method of Desk is callable from the page, so the rest are functions.
package desk

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TopicSessions carries the conversation list ([]store.SessionInfo) after any change.
const TopicSessions = "sessions"

// Tabs are the agent browser's tabs, closed with the conversation they belong to.
type Tabs interface {
	CloseSession(id string)
}

// Dialogs are the native file dialogs (the Wails window provides them). Each returns "" when
// the user cancels.
type Dialogs interface {
	ChooseDirectory(title, defaultDir string) (string, error)
	ChooseSaveFile(title, defaultName string) (string, error)
}

// Options are what a Desk works on.
type Options struct {
	Store  *store.Store
	Runner *session.Runner
	// Emit sends an event to the user interface (it must not block).
	Emit func(topic string, data any)
	// Tabs of a deleted session are closed (nil: none).
	Tabs Tabs
	// History is the full-text index of every conversation (kept in the store, see backend/history).
	History *history.Index
	// Config reads the settings (the Tools menu shows their safety switches).
	Config func() (config.Config, error)
	// Dialogs are the window's dialogs; nil (or a nil answer) under `tofu serve`.
	Dialogs func() Dialogs
}

// Desk lists, creates, renames and deletes conversations.
type Desk struct {
	store   *store.Store
	emit    func(topic string, data any)
	runner  *session.Runner
	browser Tabs
	history *history.Index
	config  func() (config.Config, error)
	dialogs func() Dialogs
}

// New makes the desk of o.Store.
func New(o Options) *Desk {
	d := &Desk{store: o.Store, emit: o.Emit, runner: o.Runner, browser: o.Tabs, history: o.History, config: o.Config, dialogs: o.Dialogs}
	if d.dialogs == nil {
		d.dialogs = func() Dialogs { return nil }
	}
	return d
}

// Announce sends the conversation list to the window (the order by last activity changed).
func Announce(d *Desk) { d.announce() }

// List returns the conversations, most recent activity first. Internal sessions (a paper's
// Q&A, report and translations: store.SessionInfo.Internal) are not conversations: the
// reader opens them by paper.
func (s *Desk) List() ([]store.SessionInfo, error) {
	all, err := s.store.Sessions()
	list := []store.SessionInfo{}
	for _, info := range all {
		if !info.Internal() && !info.InTrash() {
			list = append(list, info)
		}
	}
	return list, err
}

// PruneStubs deletes the "New conversation" stubs a previous run left (store.SessionInfo.Stub):
// opened, never written to. It runs when the services start, before anyone can be typing
// into one.
func PruneStubs(st *store.Store) error {
	all, err := st.Sessions()
	if err != nil {
		return err
	}
	for _, info := range all {
		if info.Stub() {
			if err := st.DeleteSession(info.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("remove the empty conversation %s: %w", info.ID, err)
			}
		}
	}
	return nil
}

// Create starts a new, empty conversation.
func (s *Desk) Create(title string) (store.SessionInfo, error) {
	info, err := s.store.CreateSession(title)
	if err == nil {
		s.announce()
	}
	return info, err
}

// Rename changes a conversation's title.
func (s *Desk) Rename(id, title string) error {
	_, err := s.store.UpdateSession(id, func(i *store.SessionInfo) { i.Title = title })
	if err == nil {
		s.announce()
	}
	return err
}

// Delete removes a conversation, stopping its reply first if one is streaming.
func (s *Desk) Delete(id string) error {
	s.runner.StopAndWait(id)
	err := s.store.DeleteSession(id)
	if err == nil {
		s.runner.Forget(id) // its log kept in memory, its "for this session" grants
		if s.browser != nil {
			s.browser.CloseSession(id)
		}
		s.announce()
	}
	return err
}

// Discard removes a conversation the user left untouched (store.SessionInfo.Stub) and keeps
// any other: the window calls it when it switches away from a "New conversation", and a
// message that arrived meanwhile must not be lost with it.
func (s *Desk) Discard(id string) error {
	info, err := s.store.Session(id)
	if err != nil || !info.Stub() || s.runner.Busy(id) {
		return nil // gone already, or a conversation now
	}
	return s.Delete(id)
}

// Transcript returns the conversation's whole event log.
func (s *Desk) Transcript(id string) ([]store.Event, error) {
	return s.store.Events(id)
}

// Search finds messages of every conversation, best first (at most 30), each with a snippet
// and the seq of its event, so the window can open the conversation at that message.
func (s *Desk) Search(query string) ([]history.Match, error) {
	if strings.TrimSpace(query) == "" {
		return []history.Match{}, nil
	}
	m, err := s.history.Search(query, 30)
	// Conversations in the trash are not found (they are kept only for Undo).
	m = slices.DeleteFunc(m, func(x history.Match) bool {
		info, err := s.store.Session(x.Session)
		return err == nil && info.InTrash()
	})
	if m == nil {
		m = []history.Match{}
	}
	return m, err
}

func (s *Desk) announce() {
	if list, err := s.List(); err == nil {
		s.emit(TopicSessions, list)
	}
}
