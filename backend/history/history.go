// Package history is full-text search over every conversation: user and assistant messages,
// tool names and arguments, session titles, in any language (backend/search's analysis and
// BM25F). The index is a projection of the Badger log kept in the same database (disk.go),
// updated as events are appended and repaired on open from where it stopped.
package history

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/tofu-research/tofu/backend/search"
	"github.com/tofu-research/tofu/backend/store"
)

// Match is one message found.
type Match struct {
	Session string          `json:"session"`
	Title   string          `json:"title"`
	Seq     uint64          `json:"seq"`
	Type    store.EventType `json:"type"`
	Time    time.Time       `json:"time"`
	Snippet string          `json:"snippet"`
	Score   float64         `json:"score"`
}

// Tuning of the segments (disk.go): a flush after flushDocs messages or flushDelay after the
// first unflushed one; fanout segments of a level merge into one of the next, up to maxLevel
// (256 · 8² = 16,384 messages: a merge stays a short pause).
const (
	flushDocs  = 256
	flushDelay = time.Second
	fanout     = 8
	maxLevel   = 2
)

// Stats count the index's work since it was opened, for tests and benchmarks.
type Stats struct {
	Rebuilds int // the index was dropped or absent and every log read again
	Replayed int // events read back from the logs (catching up, renames)
	Flushes  int
	Merges   int
}

// Index searches the messages of a store.
type Index struct {
	st *store.Store
	db *badger.DB
	an *search.Analyzer

	unsubs []func()
	tasks  chan task     // renames and deletions, for the worker
	kick   chan struct{} // a flush is due
	stop   chan struct{} // closed by Close
	done   chan struct{} // closed when the worker has stopped
	ready  chan struct{} // closed when the index has caught up with the logs once
	closer sync.Once

	// ixMu serializes what decides which events are indexed: appends as they are published,
	// catching up a session from its log, renames and deletions.
	ixMu sync.Mutex

	flushAt int // flushDocs, smaller in tests that need many flushes and merges

	mu       sync.Mutex
	meta     meta                  // what is flushed
	pending  []*pdoc               // indexed, not yet flushed, in doc order
	sessions map[string]*liveState // every session the index has read
	dead     map[uint32]bool       // removed flushed docs; replaced, never changed in place
	nextDoc  uint32
	err      error // what stopped the index (a failed repair or flush)
	stats    Stats
}

// liveState is sessState in memory: dirty until the seq is flushed.
type liveState struct {
	sessState
	dirty bool
}

// pdoc is an indexed message not yet flushed.
type pdoc struct {
	num     uint32
	session string
	seq     uint64
	lens    [nFields]int32
	lang    string
	tf      map[string][nFields]uint16
}

// task is work for the worker: a session renamed or deleted, or a Sync.
type task struct {
	session string
	title   string // the new title (a rename)
	deleted bool
	sync    chan struct{}
}

// New opens st's history index (building it from the logs when it has none, or one of an
// older format) and follows the store: appends are indexed as they are published, renames and
// deletions as they happen. What the logs hold beyond the index (Tofu stopped between an append
// and a flush) is indexed in the background; Search waits for it. Close before closing st.
func New(st *store.Store) *Index { return open(st, flushDocs) }

// open is New with the flush size given.
func open(st *store.Store, flushAt int) *Index {
	x := &Index{st: st, db: st.Badger(), an: search.NewAnalyzer(), flushAt: flushAt,
		tasks: make(chan task, 64), kick: make(chan struct{}, 1), stop: make(chan struct{}),
		done: make(chan struct{}), ready: make(chan struct{}),
		sessions: map[string]*liveState{}, dead: map[uint32]bool{}}
	if err := x.load(); err != nil {
		x.err = fmt.Errorf("open the history index: %w", err)
		close(x.ready)
		close(x.done)
		return x
	}
	x.unsubs = append(x.unsubs,
		st.Subscribe(x.onEvent),
		st.WatchSessions(x.onSessionChange))
	go x.work()
	return x
}

// Close stops following the store and flushes what is indexed.
func (x *Index) Close() {
	x.closer.Do(func() {
		for _, u := range x.unsubs {
			u()
		}
		close(x.stop)
		<-x.done
	})
}

// Stats reports the index's work since New.
func (x *Index) Stats() Stats {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.stats
}

// Sync waits until the renames and deletions reported so far are indexed and everything
// indexed is flushed.
func (x *Index) Sync() error {
	ack := make(chan struct{})
	select {
	case x.tasks <- task{sync: ack}:
	case <-x.done:
		return errClosed
	}
	select {
	case <-ack:
	case <-x.done:
		return errClosed
	}
	return x.failed()
}

func (x *Index) fail(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err == nil {
		x.err = err
	}
}

func (x *Index) failed() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

var errClosed = errors.New("the history index is closed")

// Snippet is about width runes of text around the first query word found in it (a word of
// the query, or for text without spaces two of its characters), on one line.
func Snippet(text, query string, width int) string {
	flat := strings.Join(strings.Fields(text), " ")
	lower := strings.ToLower(flat)
	if len(lower) != len(flat) {
		flat = lower // case folding changed byte lengths: show the folded text, offsets hold
	}
	pos := -1
	for _, w := range candidates(strings.ToLower(query)) {
		if i := strings.Index(lower, w); i >= 0 && (pos < 0 || i < pos) {
			pos = i
		}
	}
	runes := []rune(flat)
	if len(runes) <= width {
		return flat
	}
	start := 0
	if pos > 0 {
		start = max(utf8.RuneCountInString(flat[:pos])-width/3, 0)
	}
	end := min(start+width, len(runes))
	s := string(runes[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(runes) {
		s += "…"
	}
	return s
}

// candidates are the query's words of three bytes or more, and the character pairs of words
// written without spaces.
func candidates(query string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(query, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || strings.ContainsRune(",.;:!?()[]{}\"'，。？！、：；「」", r)
	}) {
		rs := []rune(w)
		if len(w) >= 3 && len(rs) <= 3 || len(w) == len(rs) && len(w) >= 3 {
			out = append(out, w)
			continue
		}
		for i := 0; i+1 < len(rs); i++ {
			out = append(out, string(rs[i:i+2]))
		}
	}
	return out
}
