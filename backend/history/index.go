package history

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
)

// follow indexes an appended event, first reading from the log whatever of its session the
// index has not read (a gap: the index was behind when the event came). The caller holds ixMu.
func (x *Index) follow(ev store.Event) error {
	x.mu.Lock()
	s := x.sessions[ev.Session]
	x.mu.Unlock()
	if s == nil {
		info, err := x.st.Session(ev.Session)
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		s = x.newState(ev.Session, info.Title)
	}
	switch {
	case ev.Seq <= s.Seq:
		return nil // read from the log already
	case ev.Seq == s.Seq+1:
		x.index(ev, s)
		return nil
	}
	return x.catchUp(ev.Session, s)
}

// newState starts following a session. The caller holds ixMu.
func (x *Index) newState(id, title string) *liveState {
	s := &liveState{sessState: sessState{Title: title}, dirty: true}
	x.mu.Lock()
	x.sessions[id] = s
	x.mu.Unlock()
	return s
}

// catchUp indexes a session's events after the last one the index read. The caller holds
// ixMu.
func (x *Index) catchUp(id string, s *liveState) error {
	evs, err := x.st.EventsFrom(id, s.Seq+1)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted: the deletion is on its way to the worker
	}
	if err != nil {
		return fmt.Errorf("catch up with session %s: %w", id, err)
	}
	for _, ev := range evs {
		if ev.Seq == s.Seq+1 {
			x.index(ev, s)
		}
	}
	x.mu.Lock()
	x.stats.Replayed += len(evs)
	x.mu.Unlock()
	return nil
}

// index records that the index read ev, and adds it as a document when it is a user or
// assistant message with text. The caller holds ixMu.
func (x *Index) index(ev store.Event, s *liveState) {
	d := x.analyze(ev, s.Title)
	x.mu.Lock()
	defer x.mu.Unlock()
	s.Seq, s.dirty = ev.Seq, true
	if d != nil {
		d.num = x.nextDoc
		x.nextDoc++
		x.pending = append(x.pending, d)
	}
}

// fieldsOf is what a user or assistant message contributes to the text and tools fields, and
// what a match shows of it; ok is false for other events.
func fieldsOf(ev store.Event) (text, tools string, ok bool) {
	switch ev.Type {
	case store.EventUser:
		var u store.UserMessage
		if ev.Decode(&u) != nil {
			return "", "", false
		}
		return u.Text, "", true
	case store.EventAssistant:
		var a store.AssistantMessage
		if ev.Decode(&a) != nil {
			return "", "", false
		}
		var b strings.Builder
		for _, c := range a.ToolCalls {
			b.WriteString(c.Name)
			b.WriteByte(' ')
			b.Write(c.Arguments)
			b.WriteByte('\n')
		}
		return a.Text, b.String(), true
	}
	return "", "", false
}

// maxDocTerms bounds the distinct terms of one message (a pasted log can hold tens of
// thousands): its postings must fit in one Badger transaction with the rest of a flush.
const maxDocTerms = 8000

// analyze makes a message's document (nil for other events). Analysis is most of the cost of
// indexing and needs no lock.
func (x *Index) analyze(ev store.Event, title string) *pdoc {
	text, tools, ok := fieldsOf(ev)
	if !ok || strings.TrimSpace(text+tools) == "" {
		return nil
	}
	fields := [nFields]string{text, tools, title}
	lang := x.an.Language(text+"\n"+tools+"\n"+title, "")
	d := &pdoc{session: ev.Session, seq: ev.Seq, lang: lang, tf: map[string][nFields]uint16{}}
	for f, s := range fields {
		terms := x.an.Terms(s, lang)
		d.lens[f] = int32(len(terms))
		for _, t := range terms {
			c, ok := d.tf[t]
			if !ok && len(d.tf) >= maxDocTerms {
				continue
			}
			if c[f] < 1<<16-1 {
				c[f]++
			}
			d.tf[t] = c
		}
	}
	return d
}
