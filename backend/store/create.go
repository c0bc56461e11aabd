package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// CreateSessionWith creates a session, its metadata set by setup (nil: none), together with
// its first events: in one transaction when they fit in one (the first at least), so a process
// killed meanwhile leaves the session with its first event or no session at all, never an
// empty one (CreateSession, then Append, could). The session's change and its events are
// published once durable, as UpdateSession and AppendBatch publish them.
func (s *Store) CreateSessionWith(title string, setup func(*SessionInfo), entries ...Entry) (SessionInfo, []Event, error) {
	data := make([]json.RawMessage, len(entries))
	for i, e := range entries {
		b, err := encodeJSON(e.Payload)
		if err != nil {
			return SessionInfo{}, nil, fmt.Errorf("encode %s event: %w", e.Type, err)
		}
		data[i] = b
	}
	now := time.Now().UTC()
	info := SessionInfo{ID: newID(), Created: now, Updated: now}
	if setup != nil {
		setup(&info)
	}
	info.Title = strings.TrimSpace(title)
	if info.Title == "" {
		info.Title = DefaultTitle
	}
	s.mu.Lock()
	var evs []Event
	err := s.db.Update(func(txn *badger.Txn) error {
		evs = evs[:0]
		meta, size := info, 0
		for i, e := range entries {
			if size += len(data[i]); i > 0 && size > batchBytes {
				break
			}
			meta.Events++
			ev := Event{Session: meta.ID, Seq: meta.Events, Time: now, Type: e.Type, Data: data[i]}
			if err := putJSON(txn, eventKey(meta.ID, ev.Seq), ev); err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		if err := putJSON(txn, metaKey(meta.ID), meta); err != nil {
			return err
		}
		info = meta
		return nil
	})
	for err == nil && len(evs) < len(entries) {
		var more []Event
		more, err = s.commit(info.ID, entries[len(evs):], data[len(evs):])
		evs = append(evs, more...)
		info.Events = uint64(len(evs))
	}
	s.mu.Unlock()
	if len(evs) == 0 && err != nil {
		return SessionInfo{}, nil, fmt.Errorf("create session: %w", err)
	}
	s.publishSession(SessionChange{Info: info})
	for _, ev := range evs {
		s.publish(ev)
	}
	if err != nil {
		return info, evs, fmt.Errorf("append %s to session %s: %w", entries[len(evs)].Type, info.ID, err)
	}
	return info, evs, nil
}
