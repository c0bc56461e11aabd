package store

import (
	"encoding/json"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

// SessionChange is a session's metadata after UpdateSession (a rename, a model…), or its
// deletion.
type SessionChange struct {
	Info    SessionInfo
	Deleted bool
}

// WatchSessions calls fn after every change of a session's metadata and every deletion, once
// it is durable, outside the store's locks. fn must not block for long. The returned function
// stops the calls.
func (s *Store) WatchSessions(fn func(SessionChange)) (cancel func()) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	id := s.next
	s.next++
	if s.watchers == nil {
		s.watchers = map[int]func(SessionChange){}
	}
	s.watchers[id] = fn
	return func() {
		s.subMu.Lock()
		defer s.subMu.Unlock()
		delete(s.watchers, id)
	}
}

func (s *Store) publishSession(c SessionChange) {
	s.subMu.RLock()
	defer s.subMu.RUnlock()
	for _, fn := range s.watchers {
		fn(c)
	}
}

// EventAt returns one event of a session's log.
func (s *Store) EventAt(id string, seq uint64) (Event, error) {
	var ev Event
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(eventKey(id, seq))
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error { return json.Unmarshal(v, &ev) })
	})
	if err != nil {
		return Event{}, fmt.Errorf("read event %d of session %s: %w", seq, id, err)
	}
	return ev, nil
}

// Badger is the database, for projections of the logs that keep their own records beside
// them under a key prefix of their own (the history index: "hx/"). The store's prefixes are
// "s/", "e/", "kv/", "b/" and "c/"; a projection never writes under them.
func (s *Store) Badger() *badger.DB { return s.db }
