package app

import (
	"sync"

	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// SessionService lists, creates, renames and deletes conversations.
type SessionService struct {
	store  *store.Store
	emit   Emitter
	runner *session.Runner

	mu     sync.Mutex
	picker Dialogs // the window's dialogs; nil under `tofu serve`
}

// List returns every session, most recent activity first.
func (s *SessionService) List() ([]store.SessionInfo, error) {
	list, err := s.store.Sessions()
	if list == nil {
		list = []store.SessionInfo{}
	}
	return list, err
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
		s.announce()
	}
	return err
}

// Transcript returns the conversation's whole event log.
func (s *SessionService) Transcript(id string) ([]store.Event, error) {
	return s.store.Events(id)
}

func (s *SessionService) announce() {
	if list, err := s.List(); err == nil {
		s.emit.Emit(TopicSessions, list)
	}
}
