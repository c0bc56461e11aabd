package app

import (
	"github.com/tofu-research/tofu/backend/config"
	"slices"
	"strings"

	"errors"
	"fmt"
	"github.com/tofu-research/tofu/backend/browser"
	"sync"

	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// SessionService lists, creates, renames and deletes conversations.
type SessionService struct {
	store  *store.Store
	emit   Emitter
	runner *session.Runner
	// browser's tabs of a deleted session are closed (nil: none).
	browser *browser.Manager
	// history is the full-text index of every conversation (kept in the store, see backend/history).
	history *history.Index
	// config reads the settings (the Tools menu shows their safety switches).
	config func() (config.Config, error)

	mu     sync.Mutex
	picker Dialogs // the window's dialogs; nil under `tofu serve`
}

// List returns the conversations, most recent activity first. Internal sessions (a paper's
// Q&A, report and translations: store.SessionInfo.Internal) are not conversations: the
// reader opens them by paper.
func (s *SessionService) List() ([]store.SessionInfo, error) {
	all, err := s.store.Sessions()
	list := []store.SessionInfo{}
	for _, info := range all {
		if !info.Internal() && !info.InTrash() {
			list = append(list, info)
		}
	}
	return list, err
}

// pruneStubs deletes the "New conversation" stubs a previous run left (store.SessionInfo.Stub):
// opened, never written to. It runs when the services start, before anyone can be typing
// into one.
func (s *SessionService) pruneStubs() error {
	all, err := s.store.Sessions()
	if err != nil {
		return err
	}
	for _, info := range all {
		if info.Stub() {
			if err := s.store.DeleteSession(info.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("remove the empty conversation %s: %w", info.ID, err)
			}
		}
	}
	return nil
}

// Create starts a new, empty conversation.
func (s *SessionService) Create(title string) (store.SessionInfo, error) {
	info, err := s.store.CreateSession(title)
	if err == nil {
		s.announce()
	}
	return info, err
}

// Rename changes a conversation's title.
func (s *SessionService) Rename(id, title string) error {
	_, err := s.store.UpdateSession(id, func(i *store.SessionInfo) { i.Title = title })
	if err == nil {
		s.announce()
	}
	return err
}

// Delete removes a conversation, stopping its reply first if one is streaming.
func (s *SessionService) Delete(id string) error {
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
func (s *SessionService) Discard(id string) error {
	info, err := s.store.Session(id)
	if err != nil || !info.Stub() || s.runner.Busy(id) {
		return nil // gone already, or a conversation now
	}
	return s.Delete(id)
}

// Transcript returns the conversation's whole event log.
func (s *SessionService) Transcript(id string) ([]store.Event, error) {
	return s.store.Events(id)
}

// Search finds messages of every conversation, best first (at most 30), each with a snippet
// and the seq of its event, so the window can open the conversation at that message.
func (s *SessionService) Search(query string) ([]history.Match, error) {
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

func (s *SessionService) announce() {
	if list, err := s.List(); err == nil {
		s.emit.Emit(TopicSessions, list)
	}
}
