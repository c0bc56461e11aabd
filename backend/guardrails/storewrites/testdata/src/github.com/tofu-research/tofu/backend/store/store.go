package store

type EventType string

type Event struct{}

type Store struct{}

func (s *Store) Append(id string, typ EventType, payload any) (Event, error) { return Event{}, nil }
func (s *Store) PutJSON(key string, v any) error                             { return nil }
func (s *Store) Events(id string) ([]Event, error)                           { return nil, nil }
