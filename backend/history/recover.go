package history

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/tofu-research/tofu/backend/store"
)

// load reads the index's state (hx/meta, hx/s, hx/x) and deletes what a crash left half done:
// a merged segment's keys not yet named by hx/meta, merged segments not yet deleted. An index
// of another format is dropped. Reading the logs is left to recover, in the background.
func (x *Index) load() error {
	var m meta
	found := false
	err := x.db.View(func(txn *badger.Txn) error {
		var err error
		found, err = getJSON(txn, []byte(metaKey), &m)
		return err
	})
	if err != nil {
		return err
	}
	if !found || m.Version != formatVersion {
		if err := x.dropAll(); err != nil {
			return fmt.Errorf("drop the old history index: %w", err)
		}
		m = meta{Version: formatVersion}
		x.stats.Rebuilds++
	}
	x.meta, x.nextDoc = m, m.NextDoc
	if err := x.deleteFrom(binary.BigEndian.AppendUint32([]byte(postPrefix), m.NextSeg), []byte(postPrefix)); err != nil {
		return fmt.Errorf("delete an unfinished merge: %w", err)
	}
	if err := x.collect(nil); err != nil {
		return err
	}
	return x.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(sessPrefix), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var s sessState
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &s) }); err != nil {
				return fmt.Errorf("read %q: %w", it.Item().Key(), err)
			}
			x.sessions[string(it.Item().Key()[len(sessPrefix):])] = &liveState{sessState: s}
		}
		it2 := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(deadPrefix)})
		defer it2.Close()
		for it2.Rewind(); it2.Valid(); it2.Next() {
			x.dead[binary.BigEndian.Uint32(it2.Item().Key()[len(deadPrefix):])] = true
		}
		return nil
	})
}

// dropAll deletes every key of the index.
func (x *Index) dropAll() error { return x.deleteFrom([]byte(prefix), []byte(prefix)) }

// deleteFrom deletes the keys from start on that have prefix p.
func (x *Index) deleteFrom(start, p []byte) error {
	var keys [][]byte
	err := x.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: p})
		defer it.Close()
		for it.Seek(start); it.Valid(); it.Next() {
			keys = append(keys, it.Item().KeyCopy(nil))
		}
		return nil
	})
	if err != nil || len(keys) == 0 {
		return err
	}
	wb := x.db.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// recover brings the index up to the logs: a session the index has not read to its end is
// read from where it stopped, one renamed meanwhile is indexed again, one deleted is removed.
// Nothing is read again that the index holds.
func (x *Index) recover() error {
	infos, err := x.st.Sessions()
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	live := map[string]bool{}
	for _, info := range infos {
		live[info.ID] = true
		select {
		case <-x.stop:
			return nil
		default:
		}
		x.ixMu.Lock()
		err := x.repair(info)
		x.ixMu.Unlock()
		if err != nil {
			return err
		}
		if err := x.flushIfDue(); err != nil {
			return err
		}
	}
	x.mu.Lock()
	var gone []string
	for id := range x.sessions {
		if !live[id] {
			gone = append(gone, id)
		}
	}
	x.mu.Unlock()
	for _, id := range gone {
		x.ixMu.Lock()
		err := x.removeSession(id)
		x.ixMu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// repair brings one session up to its log. The caller holds ixMu.
func (x *Index) repair(info store.SessionInfo) error {
	x.mu.Lock()
	s := x.sessions[info.ID]
	x.mu.Unlock()
	if s != nil && (s.Title != info.Title || s.Seq > info.Events) {
		return x.retitle(info.ID, info.Title)
	}
	if s == nil {
		if info.Events == 0 {
			return nil
		}
		s = x.newState(info.ID, info.Title)
	}
	if s.Seq < info.Events {
		return x.catchUp(info.ID, s)
	}
	return nil
}

func (x *Index) flushIfDue() error {
	x.mu.Lock()
	due := len(x.pending) >= x.flushAt
	x.mu.Unlock()
	if !due {
		return nil
	}
	if err := x.flush(); err != nil {
		return err
	}
	return x.merge()
}

// retitle indexes a renamed session's messages again under the new title. The caller holds
// ixMu.
func (x *Index) retitle(id, title string) error {
	if err := x.removeSession(id); err != nil {
		return err
	}
	info, err := x.st.Session(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	_ = title // the store's title now: a later rename may have overtaken this one
	return x.catchUp(id, x.newState(id, info.Title))
}

// removeSession drops a session's documents: pending ones at once, flushed ones by
// tombstones written with the new statistics and, last, the deletion of its hx/s. The caller
// holds ixMu; only the worker calls it.
func (x *Index) removeSession(id string) error {
	x.mu.Lock()
	kept := x.pending[:0:0]
	for _, d := range x.pending {
		if d.session != id {
			kept = append(kept, d)
		}
	}
	x.pending = kept
	delete(x.sessions, id)
	dead := x.dead
	x.mu.Unlock()
	type doc struct {
		num uint32
		rec docRecord
	}
	var docs []doc
	needle := []byte(`"s":` + quote(id))
	err := x.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(docPrefix), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			num := binary.BigEndian.Uint32(it.Item().Key()[len(docPrefix):])
			if dead[num] {
				continue
			}
			err := it.Item().Value(func(v []byte) error {
				if !bytes.Contains(v, needle) {
					return nil
				}
				var r docRecord
				if err := json.Unmarshal(v, &r); err != nil {
					return err
				}
				if r.Session == id {
					docs = append(docs, doc{num, r})
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("find session %s in the history index: %w", id, err)
	}
	// Tombstones in chunks, each with the statistics it changes: a crash between two chunks
	// leaves a consistent index that the next open finishes.
	const chunk = 1000
	for start := 0; ; start += chunk {
		part := docs[start:min(start+chunk, len(docs))]
		x.mu.Lock()
		m := x.meta
		m.Stats = x.meta.Stats.clone()
		x.mu.Unlock()
		last := start+chunk >= len(docs)
		err := x.db.Update(func(txn *badger.Txn) error {
			for _, d := range part {
				if err := txn.Set(deadKey(d.num), nil); err != nil {
					return err
				}
				m.Stats.add(d.rec.Lens, d.rec.Lang, -1)
			}
			if last {
				if err := txn.Delete(sessKey(id)); err != nil {
					return err
				}
			}
			return setJSON(txn, []byte(metaKey), m)
		})
		if err != nil {
			return fmt.Errorf("remove session %s from the history index: %w", id, err)
		}
		x.mu.Lock()
		x.meta = m
		if len(part) > 0 {
			next := make(map[uint32]bool, len(x.dead)+len(part))
			for d := range x.dead {
				next[d] = true
			}
			for _, d := range part {
				next[d.num] = true
			}
			x.dead = next
		}
		x.mu.Unlock()
		if last {
			return nil
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
