package store

import (
	"encoding/json"
	"fmt"
	"strings"

	badger "github.com/dgraph-io/badger/v4"
)

// ListJSON calls fn with the name and value of every small JSON record whose name starts with
// prefix (see PutJSON), in name order.
func (s *Store) ListJSON(prefix string, fn func(name string, raw json.RawMessage) error) error {
	p := []byte("kv/" + prefix)
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: p, PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			name := strings.TrimPrefix(string(it.Item().Key()), "kv/")
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if err := fn(name, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list %s*: %w", prefix, err)
	}
	return nil
}

// DeleteJSON removes a small JSON record; a missing one is not an error.
func (s *Store) DeleteJSON(name string) error {
	err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete([]byte("kv/" + name)) })
	if err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	return nil
}
