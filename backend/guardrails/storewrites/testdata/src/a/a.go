package a

import "github.com/tofu-research/tofu/backend/store"

// log is how a consumer declares what it needs of the store.
type log interface {
	Append(id string, typ store.EventType, payload any) (store.Event, error)
}

// list is an Append that is not the store's.
type list interface{ Append(s string) error }

func record(s *store.Store) error {
	_, err := s.Append("x", "user", nil)
	return err
}

func uses(s *store.Store, l log, other list) {
	s.Append("x", "user", nil)      // want `the error of this store write is ignored`
	l.Append("x", "user", nil)      // want `the error of this store write is ignored`
	defer s.PutJSON("k", 1)         // want `deferred store write`
	_, _ = s.Append("x", "user", 1) // want `dropped without a reason`
	_ = s.PutJSON("k", 1)           // a reason: the next write reports a full disk
	// a reason on the line above
	_, _ = l.Append("x", "user", 2)
	record(s) // want `the error of this store write is ignored`
	other.Append("y")
	s.Events("x")
	if _, err := s.Append("x", "user", 3); err != nil {
		return
	}
}
