package history

import (
	"errors"
	"fmt"
	"sort"

	badger "github.com/dgraph-io/badger/v4"
)

// flush writes the pending documents as new segments and the sessions read since the last
// flush, each segment in one transaction with hx/meta and its sessions' hx/s. Only the worker
// flushes.
func (x *Index) flush() error {
	x.mu.Lock()
	docs := x.pending
	states := map[string]sessState{}
	for id, s := range x.sessions {
		if s.dirty {
			states[id] = s.sessState
		}
	}
	x.mu.Unlock()
	if len(docs) == 0 && len(states) == 0 {
		return nil
	}
	for first := true; first || len(docs) > 0; first = false {
		n := len(docs)
		for {
			err := x.commitSegment(docs[:n], chunkStates(states, docs[n:]))
			if errors.Is(err, badger.ErrTxnTooBig) && n > 1 {
				n /= 2 // a large message or many at once: a smaller segment
				continue
			}
			if err != nil {
				return fmt.Errorf("flush the history index: %w", err)
			}
			break
		}
		docs = docs[n:]
	}
	x.mu.Lock()
	for id, st := range states {
		if s := x.sessions[id]; s != nil && s.sessState == st {
			s.dirty = false
		}
	}
	x.stats.Flushes++
	x.mu.Unlock()
	return nil
}

// chunkStates are the sessions' states a segment may record when rest are still unflushed:
// a session with documents in rest is recorded as read up to just before the first of them
// (a crash after this segment reads them again from the log).
func chunkStates(states map[string]sessState, rest []*pdoc) map[string]sessState {
	if len(rest) == 0 {
		return states
	}
	out := make(map[string]sessState, len(states))
	for id, st := range states {
		out[id] = st
	}
	for _, d := range rest {
		if st, ok := out[d.session]; ok && d.seq-1 < st.Seq {
			st.Seq = d.seq - 1
			out[d.session] = st
		}
	}
	return out
}

// commitSegment writes docs as one segment (none: only the states), in one transaction.
func (x *Index) commitSegment(docs []*pdoc, states map[string]sessState) error {
	x.mu.Lock()
	m := x.meta
	m.Stats = x.meta.Stats.clone()
	m.Segments = append([]segment(nil), x.meta.Segments...)
	x.mu.Unlock()
	txn := x.db.NewTransaction(true)
	defer txn.Discard()
	if len(docs) > 0 {
		seg := m.NextSeg
		m.NextSeg++
		lists := make(map[string]*plist, len(docs)*8)
		for _, d := range docs {
			for t, tf := range d.tf {
				e := entry{doc: d.num, tf: tf}
				for f := range nFields {
					if tf[f] > 0 {
						e.lens[f] = d.lens[f]
					}
				}
				l := lists[t]
				if l == nil {
					l = &plist{}
					lists[t] = l
				}
				l.add(e)
			}
			rec := docRecord{Session: d.session, Seq: d.seq, Lens: d.lens, Lang: d.lang}
			if err := setJSON(txn, docKey(d.num), rec); err != nil {
				return err
			}
			m.Stats.add(d.lens, d.lang, 1)
		}
		for t, l := range lists {
			if err := txn.Set(postKey(seg, t), l.buf); err != nil {
				return err
			}
		}
		m.Segments = append(m.Segments, segment{ID: seg, Docs: len(docs)})
		m.NextDoc = docs[len(docs)-1].num + 1
	}
	for id, st := range states {
		if err := setJSON(txn, sessKey(id), st); err != nil {
			return err
		}
	}
	if err := setJSON(txn, []byte(metaKey), m); err != nil {
		return err
	}
	if err := txn.Commit(); err != nil {
		return err
	}
	x.mu.Lock()
	x.meta = m
	// Only the worker removes pending documents, and only it flushes: docs are still the
	// front of pending.
	x.pending = append([]*pdoc(nil), x.pending[len(docs):]...)
	x.mu.Unlock()
	return nil
}

// merge folds the newest fanout segments into one of the next level while they share a level
// below maxLevel, dropping removed documents.
func (x *Index) merge() error {
	for {
		x.mu.Lock()
		segs := x.meta.Segments
		x.mu.Unlock()
		if len(segs) < fanout {
			return nil
		}
		run := segs[len(segs)-fanout:]
		level := run[0].Level
		if level >= maxLevel {
			return nil
		}
		for _, s := range run {
			if s.Level != level {
				return nil
			}
		}
		if err := x.mergeRun(run, level+1); err != nil {
			return fmt.Errorf("merge history segments: %w", err)
		}
	}
}

// mergeRun writes run's postings as one segment of level, then swaps it in (one transaction
// for hx/meta) and deletes the old keys. The new segment's keys are written before hx/meta
// names it: after a crash they sit at or past meta.NextSeg, and open deletes them.
func (x *Index) mergeRun(run []segment, level int) error {
	x.mu.Lock()
	dead := x.dead
	seg := x.meta.NextSeg
	x.mu.Unlock()
	lists := map[string]*plist{}
	dropped := map[uint32]bool{}
	err := x.db.View(func(txn *badger.Txn) error {
		for _, s := range run {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: segPrefix(s.ID), PrefetchValues: true})
			for it.Rewind(); it.Valid(); it.Next() {
				t := string(it.Item().Key()[len(segPrefix(s.ID)):])
				err := it.Item().Value(func(v []byte) error {
					return eachEntry(v, func(e entry) {
						if dead[e.doc] {
							dropped[e.doc] = true
							return
						}
						l := lists[t]
						if l == nil {
							l = &plist{}
							lists[t] = l
						}
						l.add(e)
					})
				})
				if err != nil {
					it.Close()
					return err
				}
			}
			it.Close()
		}
		return nil
	})
	if err != nil {
		return err
	}
	wb := x.db.NewWriteBatch()
	defer wb.Cancel()
	terms := make([]string, 0, len(lists))
	for t := range lists {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	for _, t := range terms {
		if err := wb.Set(postKey(seg, t), lists[t].buf); err != nil {
			return err
		}
	}
	if err := wb.Flush(); err != nil {
		return err
	}
	docs := 0
	for _, s := range run {
		docs += s.Docs
	}
	x.mu.Lock()
	m := x.meta
	m.Segments = append(append([]segment(nil), m.Segments[:len(m.Segments)-len(run)]...),
		segment{ID: seg, Level: level, Docs: docs - len(dropped)})
	m.NextSeg = seg + 1
	for _, s := range run {
		m.Garbage = append(m.Garbage, s.ID)
	}
	x.mu.Unlock()
	if err := x.db.Update(func(txn *badger.Txn) error { return setJSON(txn, []byte(metaKey), m) }); err != nil {
		return err
	}
	x.mu.Lock()
	x.meta = m
	x.stats.Merges++
	if len(dropped) > 0 {
		live := make(map[uint32]bool, len(x.dead))
		for d := range x.dead {
			if !dropped[d] {
				live[d] = true
			}
		}
		x.dead = live
	}
	x.mu.Unlock()
	return x.collect(dropped)
}

// collect deletes the keys of merged segments (meta.Garbage), and the records and tombstones
// of documents a merge dropped (leftovers of those after a crash are harmless: no segment
// names their documents any more, and document numbers are never reused).
func (x *Index) collect(dropped map[uint32]bool) error {
	x.mu.Lock()
	garbage := x.meta.Garbage
	x.mu.Unlock()
	if len(garbage) == 0 && len(dropped) == 0 {
		return nil
	}
	wb := x.db.NewWriteBatch()
	defer wb.Cancel()
	for _, seg := range garbage {
		var keys [][]byte
		err := x.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: segPrefix(seg)})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				keys = append(keys, it.Item().KeyCopy(nil))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := wb.Delete(k); err != nil {
				return err
			}
		}
	}
	for d := range dropped {
		if err := wb.Delete(docKey(d)); err != nil {
			return err
		}
		if err := wb.Delete(deadKey(d)); err != nil {
			return err
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("delete merged segments: %w", err)
	}
	x.mu.Lock()
	m := x.meta
	m.Garbage = nil
	x.mu.Unlock()
	if err := x.db.Update(func(txn *badger.Txn) error { return setJSON(txn, []byte(metaKey), m) }); err != nil {
		return err
	}
	x.mu.Lock()
	x.meta.Garbage = nil
	x.mu.Unlock()
	return nil
}

// plist is a posting list being encoded.
type plist struct {
	buf  []byte
	last uint32
}

func (l *plist) add(e entry) {
	l.buf = appendEntry(l.buf, l.last, e)
	l.last = e.doc
}
