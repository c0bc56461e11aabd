// Package store keeps Tofu's state in one embedded Badger database: every session is an
// append-only event log, plus small JSON records for settings.
package store

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// ErrLocked means another process (another Tofu) has the database open.
var ErrLocked = errors.New("the Tofu database is in use by another process: Tofu is already running")

// ErrNotFound means the session does not exist.
var ErrNotFound = errors.New("session not found")

// DefaultTitle is the title of a conversation nobody has named yet.
const DefaultTitle = "New conversation"

// SessionInfo is the metadata of one session, kept beside its log.
type SessionInfo struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"` // time of the last event (or rename)
	Model   string    `json:"model,omitempty"`
	Events  uint64    `json:"events"` // number of events, also the last seq
	// Workspace is the directory an agent session works in (tools resolve paths against it).
	Workspace string `json:"workspace,omitempty"`
	// Paper links the session to a paper of the library (its Q&A, report or a translation's
	// model calls); Purpose says which ("qa", "report", "translation"). Empty for ordinary
	// conversations.
	Paper   string  `json:"paper,omitempty"`
	Purpose Purpose `json:"purpose,omitempty"`
	// Mode is how an agent session's turns run: "" (chat: the tool loop) or "autonomous"
	// (planner → worker → critic).
	Mode SessionMode `json:"mode,omitempty"`
	// Parent is the session whose spawn_agents call started this one (Purpose "swarm_agent");
	// ParentCall names that call.
	Parent     string `json:"parent,omitempty"`
	ParentCall string `json:"parent_call,omitempty"`
	// Translate turns translate-then-reason on: a message not in English is translated into
	// English for the model, and the reply back into the user's language (backend/lang).
	Translate bool `json:"translate,omitempty"`
	// RecallOff stops memory recall before this session's turns (the Enhance menu); the
	// settings' memory_recall_off stops it everywhere.
	RecallOff bool `json:"recall_off,omitempty"`
	// Thinking is this conversation's reasoning effort (the Enhance menu): off, low, medium or
	// high, as the settings' thinking; "" follows the settings.
	Thinking string `json:"thinking,omitempty"`
	// ToolsOff are the tool families this conversation turned off (the toolbar's Tools menu):
	// their tools are neither offered nor found by tool_search. The settings' safety switches
	// (web access, the desktop) still turn theirs off everywhere.
	ToolsOff []ToolFamily `json:"tools_off,omitempty"`
	// ToolsOn are the families the user turned on in this conversation (the Tools menu): their
	// tools are offered from the next request on, rather than waiting for tool_search.
	ToolsOn []ToolFamily `json:"tools_on,omitempty"`
	// Eval marks a session that ran a task of a suite (tofu eval tasks): the window groups a
	// suite's sessions and shows each task's outcome once it is graded.
	Eval *EvalTask `json:"eval,omitempty"`
	// Folder is the sidebar folder the conversation is in ("" : none); Pinned keeps it at the
	// top of the list. Trashed is when it was deleted (zero: it was not, or was restored):
	// hidden, kept until purged (EventTrash).
	Folder  string    `json:"folder,omitempty"`
	Pinned  bool      `json:"pinned,omitempty"`
	Trashed time.Time `json:"trashed,omitzero"`
	// ForkOf is the conversation this one duplicates, up to its event ForkSeq.
	ForkOf  string `json:"fork_of,omitempty"`
	ForkSeq uint64 `json:"fork_seq,omitempty"`
	// Bridge is the chat platform a bridge conversation comes from ("matrix", "telegram", …;
	// backend/bridge); "" for the window's own.
	Bridge string `json:"bridge,omitempty"`
}

// EvalTask is what a suite's session says of its task.
type EvalTask struct {
	Suite    string `json:"suite"`    // the suite file's name without .jsonl
	Instance string `json:"instance"` // the task's instance_id
	// Run tells two runs of a suite apart: the report's name (--out), else when it started.
	Run string `json:"run,omitempty"`
	// Graded is set once the tests ran (Resolved and the counts mean something then).
	Graded      bool `json:"graded,omitempty"`
	Resolved    bool `json:"resolved,omitempty"`
	TestsPassed int  `json:"tests_passed,omitempty"`
	TestsFailed int  `json:"tests_failed,omitempty"`
}

// Store is the Badger database. All methods are safe for concurrent use.
type Store struct {
	db *badger.DB
	mu sync.Mutex // serializes writers: seq allocation must not race

	subMu    sync.RWMutex
	subs     map[int]func(Event)
	watchers map[int]func(SessionChange)
	next     int
}

// Open opens (or creates) the database in dir.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir %s: %w", dir, err)
	}
	if err := removeEmptyMemtables(dir); err != nil {
		return nil, fmt.Errorf("open database %s: %w", dir, err)
	}
	opts := badger.DefaultOptions(dir).
		WithSyncWrites(true). // an append is durable before anyone sees it
		WithLogger(nil).
		// Sized for a desktop app: the defaults (64 MB memtables, 256 MB block cache) are
		// tuned for servers and show up directly as idle memory.
		WithMemTableSize(8 << 20).
		WithNumMemtables(2).
		WithBlockCacheSize(16 << 20).
		WithIndexCacheSize(8 << 20).
		WithValueLogFileSize(64 << 20).
		WithNumCompactors(2)
	db, err := openBadger(opts)
	if err != nil {
		if isLocked(err) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, filepath.Join(dir, "LOCK"))
		}
		return nil, fmt.Errorf("open database %s: %w", dir, err)
	}
	return &Store{db: db, subs: map[int]func(Event){}}, nil
}

// Close flushes and closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Dir is the directory the database lives in (Tofu's data directory).
func (s *Store) Dir() string { return s.db.Opts().Dir }

// DataDir returns Tofu's data directory: $XDG_DATA_HOME/tofu, else ~/.local/share/tofu.
func DataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "tofu"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "tofu"), nil
}

func metaKey(id string) []byte { return []byte("s/" + id) }

func eventPrefix(id string) []byte { return []byte("e/" + id + "/") }

func eventKey(id string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(eventPrefix(id), seq)
}

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	// Time first so ids sort by creation, random tail so two at once never collide.
	return fmt.Sprintf("%x%s", time.Now().UnixMilli(), hex.EncodeToString(b[:]))
}

// CreateSession starts an empty session.
func (s *Store) CreateSession(title string) (SessionInfo, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		title = DefaultTitle
	}
	now := time.Now().UTC()
	info := SessionInfo{ID: newID(), Title: title, Created: now, Updated: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.db.Update(func(txn *badger.Txn) error { return putJSON(txn, metaKey(info.ID), info) })
	if err != nil {
		return SessionInfo{}, fmt.Errorf("create session: %w", err)
	}
	return info, nil
}

// Session returns one session's metadata.
func (s *Store) Session(id string) (SessionInfo, error) {
	var info SessionInfo
	err := s.db.View(func(txn *badger.Txn) error { return getJSON(txn, metaKey(id), &info) })
	if err != nil {
		return SessionInfo{}, fmt.Errorf("session %s: %w", id, err)
	}
	return info, nil
}

// Sessions lists all sessions, most recent activity first.
func (s *Store) Sessions() ([]SessionInfo, error) {
	var out []SessionInfo
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte("s/"), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var info SessionInfo
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &info) }); err != nil {
				return fmt.Errorf("read %s: %w", it.Item().Key(), err)
			}
			out = append(out, info)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// UpdateSession changes a session's metadata (title, model) with fn.
func (s *Store) UpdateSession(id string, fn func(*SessionInfo)) (SessionInfo, error) {
	info, err := s.updateSession(id, fn)
	if err == nil {
		s.publishSession(SessionChange{Info: info})
	}
	return info, err
}

func (s *Store) updateSession(id string, fn func(*SessionInfo)) (SessionInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var info SessionInfo
	err := s.db.Update(func(txn *badger.Txn) error {
		if err := getJSON(txn, metaKey(id), &info); err != nil {
			return err
		}
		fn(&info)
		info.ID = id
		info.Title = strings.TrimSpace(info.Title)
		if info.Title == "" {
			info.Title = DefaultTitle
		}
		return putJSON(txn, metaKey(id), info)
	})
	if err != nil {
		return SessionInfo{}, fmt.Errorf("update session %s: %w", id, err)
	}
	return info, nil
}

// DeleteSession removes a session and its whole log.
func (s *Store) DeleteSession(id string) error {
	info, err := s.deleteSession(id)
	if err == nil {
		s.publishSession(SessionChange{Info: info, Deleted: true})
	}
	return err
}

func (s *Store) deleteSession(id string) (SessionInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, err := s.Session(id)
	if err != nil {
		return SessionInfo{}, err
	}
	// Delete in batches: one transaction has a size limit and a log can be long.
	prefix := eventPrefix(id)
	for {
		var keys [][]byte
		err := s.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			defer it.Close()
			for it.Rewind(); it.Valid() && len(keys) < 1000; it.Next() {
				keys = append(keys, it.Item().KeyCopy(nil))
			}
			return nil
		})
		if err != nil {
			return SessionInfo{}, fmt.Errorf("delete session %s: %w", id, err)
		}
		if len(keys) == 0 {
			break
		}
		err = s.db.Update(func(txn *badger.Txn) error {
			for _, k := range keys {
				if err := txn.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return SessionInfo{}, fmt.Errorf("delete session %s: %w", id, err)
		}
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete(metaKey(id)) }); err != nil {
		return SessionInfo{}, fmt.Errorf("delete session %s: %w", id, err)
	}
	return info, nil
}

// Append adds an event to a session's log. It returns once the event is on disk; subscribers
// see it only after that.
func (s *Store) Append(id string, typ EventType, payload any) (Event, error) {
	evs, err := s.AppendBatch(id, Entry{Type: typ, Payload: payload})
	if err != nil {
		return Event{}, err
	}
	return evs[0], nil
}

// Entry is one event to append: its type and payload.
type Entry struct {
	Type    EventType
	Payload any
}

// batchBytes is about the most a batch puts in one transaction: Badger refuses a transaction
// over 15% of a memtable (1.2 MB here), and the session's metadata must fit beside the events.
// A larger batch is written in several transactions; one event alone always gets its own.
const batchBytes = 256 << 10

// AppendBatch adds entries to a session's log, in order, with gapless seqs, in one transaction
// and so one sync (several only when the batch is large): an agent step's events cost one
// fsync, not one each. It returns once they are on disk; subscribers see them only after that,
// in order. On an error it returns the events written before it (durable and published).
func (s *Store) AppendBatch(id string, entries ...Entry) ([]Event, error) {
	data := make([]json.RawMessage, len(entries))
	for i, e := range entries {
		b, err := encodeJSON(e.Payload)
		if err != nil {
			return nil, fmt.Errorf("encode %s event: %w", e.Type, err)
		}
		data[i] = b
	}
	var out []Event
	var err error
	s.mu.Lock()
	for len(out) < len(entries) && err == nil {
		var evs []Event
		evs, err = s.commit(id, entries[len(out):], data[len(out):])
		out = append(out, evs...)
	}
	s.mu.Unlock()
	for _, ev := range out {
		s.publish(ev)
	}
	if err != nil {
		return out, fmt.Errorf("append %s to session %s: %w", entries[len(out)].Type, id, err)
	}
	return out, nil
}

// commit writes the first entries that fit in one transaction (at least one) and the session's
// new metadata. The caller holds s.mu.
func (s *Store) commit(id string, entries []Entry, data []json.RawMessage) ([]Event, error) {
	var evs []Event
	err := s.db.Update(func(txn *badger.Txn) error {
		evs = evs[:0]
		var info SessionInfo
		if err := getJSON(txn, metaKey(id), &info); err != nil {
			return err
		}
		now, size := time.Now().UTC(), 0
		for i, e := range entries {
			if size += len(data[i]); i > 0 && size > batchBytes {
				break
			}
			info.Events++
			ev := Event{Session: id, Seq: info.Events, Time: now, Type: e.Type, Data: data[i]}
			if err := putJSON(txn, eventKey(id, ev.Seq), ev); err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		info.Updated = now
		return putJSON(txn, metaKey(id), info)
	})
	if err != nil {
		return nil, err
	}
	return evs, nil
}

// Events returns a session's whole log in order.
func (s *Store) Events(id string) ([]Event, error) {
	return s.EventsFrom(id, 1)
}

// EventsFrom returns the events of a session with seq >= from.
func (s *Store) EventsFrom(id string, from uint64) ([]Event, error) {
	if _, err := s.Session(id); err != nil {
		return nil, err
	}
	var out []Event
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: eventPrefix(id), PrefetchValues: true})
		defer it.Close()
		for it.Seek(eventKey(id, from)); it.Valid(); it.Next() {
			var ev Event
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &ev) }); err != nil {
				return fmt.Errorf("read event %x: %w", it.Item().Key(), err)
			}
			out = append(out, ev)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	return out, nil
}

// Subscribe calls fn with every event after it is durably appended, in append order. fn must
// not block. The returned function unsubscribes.
func (s *Store) Subscribe(fn func(Event)) (cancel func()) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	id := s.next
	s.next++
	s.subs[id] = fn
	return func() {
		s.subMu.Lock()
		defer s.subMu.Unlock()
		delete(s.subs, id)
	}
}

func (s *Store) publish(ev Event) {
	s.subMu.RLock()
	defer s.subMu.RUnlock()
	for _, fn := range s.subs {
		fn(ev)
	}
}

// GetJSON reads a small JSON record (settings and the like). It reports whether it existed.
func (s *Store) GetJSON(key string, v any) (bool, error) {
	err := s.db.View(func(txn *badger.Txn) error { return getJSON(txn, []byte("kv/"+key), v) })
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", key, err)
	}
	return true, nil
}

// PutJSON writes a small JSON record.
func (s *Store) PutJSON(key string, v any) error {
	err := s.db.Update(func(txn *badger.Txn) error { return putJSON(txn, []byte("kv/"+key), v) })
	if err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

func getJSON(txn *badger.Txn, key []byte, v any) error {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(func(b []byte) error { return json.Unmarshal(b, v) })
}

func putJSON(txn *badger.Txn, key []byte, v any) error {
	b, err := encodeJSON(v)
	if err != nil {
		return err
	}
	return txn.Set(key, b)
}
