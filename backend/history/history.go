// Package history is full-text search over every conversation: user and assistant messages,
// tool names and arguments, session titles, in any language (backend/search). The index is a
// projection of the Badger log, built on first use and kept up to date on append.
package history

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/search"
	"github.com/tofu-research/tofu/backend/store"
)

// fields of a message: its text, the tools it called with their arguments, and the title of
// its conversation (a paper's sessions are titled after the paper).
var fields = []search.Field{{Name: "text", Weight: 1}, {Name: "tools", Weight: 1}, {Name: "title", Weight: 1}}

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

// Index searches the messages of a store.
type Index struct {
	st    *store.Store
	an    *search.Analyzer
	ix    *search.Index
	unsub func()

	buildMu sync.Mutex // one Build at a time; appends go on meanwhile
	built   bool

	mu     sync.Mutex
	texts  map[string]entry // doc ID → what a match shows
	titles map[string]string
}

type entry struct {
	session string
	seq     uint64
	typ     store.EventType
	time    time.Time
	text    string
}

// New indexes st's messages: appends are indexed as they are published; the existing log is
// read on the first search (Build).
func New(st *store.Store) *Index {
	an := search.NewAnalyzer()
	x := &Index{st: st, an: an, ix: search.NewIndex(an, search.DefaultParams, fields...),
		texts: map[string]entry{}, titles: map[string]string{}}
	x.unsub = st.Subscribe(func(ev store.Event) { x.add(ev, "") })
	return x
}

// Close stops following the store.
func (x *Index) Close() { x.unsub() }

// Build reads every session's log into the index once; later calls return at once.
func (x *Index) Build() error {
	x.buildMu.Lock()
	defer x.buildMu.Unlock()
	if x.built {
		return nil
	}
	infos, err := x.st.Sessions()
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	for _, info := range infos {
		evs, err := x.st.Events(info.ID)
		if err != nil {
			return fmt.Errorf("read session %s: %w", info.ID, err)
		}
		for _, ev := range evs {
			x.add(ev, info.Title) // an event also published meanwhile is indexed twice, same ID
		}
	}
	x.built = true
	return nil
}

func (x *Index) add(ev store.Event, title string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.addLocked(ev, title)
}

// addLocked indexes a user or assistant message (others carry no conversation text).
func (x *Index) addLocked(ev store.Event, title string) {
	var text, tools string
	switch ev.Type {
	case store.EventUser:
		var u store.UserMessage
		if ev.Decode(&u) != nil {
			return
		}
		text = u.Text
	case store.EventAssistant:
		var a store.AssistantMessage
		if ev.Decode(&a) != nil {
			return
		}
		text = a.Text
		var b strings.Builder
		for _, c := range a.ToolCalls {
			b.WriteString(c.Name)
			b.WriteByte(' ')
			b.Write(c.Arguments)
			b.WriteByte('\n')
		}
		tools = b.String()
	default:
		return
	}
	if strings.TrimSpace(text+tools) == "" {
		return
	}
	if title != "" {
		x.titles[ev.Session] = title
	} else {
		t, ok := x.titles[ev.Session]
		if !ok {
			if info, err := x.st.Session(ev.Session); err == nil {
				t = info.Title
			}
			x.titles[ev.Session] = t
		}
		title = t
	}
	id := ev.Session + "/" + strconv.FormatUint(ev.Seq, 10)
	shown := text
	if shown == "" {
		shown = tools
	}
	x.texts[id] = entry{session: ev.Session, seq: ev.Seq, typ: ev.Type, time: ev.Time, text: shown}
	x.ix.Add(search.Doc{ID: id, Fields: []string{text, tools, title}})
}

// Search returns up to k messages for query, best first, each with a snippet around the
// first place a query word appears. Messages of deleted sessions are dropped from the index.
func (x *Index) Search(query string, k int) ([]Match, error) {
	if err := x.Build(); err != nil {
		return nil, err
	}
	if k <= 0 {
		k = 20
	}
	var out []Match
	for _, h := range x.ix.Search(query, k*2) {
		x.mu.Lock()
		e, ok := x.texts[h.ID]
		title := x.titles[e.session]
		x.mu.Unlock()
		if !ok {
			continue
		}
		if _, err := x.st.Session(e.session); err != nil {
			x.forget(e.session)
			continue
		}
		out = append(out, Match{Session: e.session, Title: title, Seq: e.seq, Type: e.typ, Time: e.time,
			Snippet: Snippet(e.text, query, 160), Score: h.Score})
		if len(out) == k {
			break
		}
	}
	return out, nil
}

// forget drops a deleted session's messages.
func (x *Index) forget(session string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for id, e := range x.texts {
		if e.session == session {
			delete(x.texts, id)
			x.ix.Remove(id)
		}
	}
	delete(x.titles, session)
}

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
