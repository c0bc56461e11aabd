package headless

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/store"
)

// Papers is the library `tofu paper ask` asks about (the window's PaperService).
type Papers interface {
	List() ([]library.Info, error)
	QASession(paperID string) (string, error)
}

// PaperSession is the Q&A conversation of the paper id names: its whole id or the start of
// one, when only one paper's id starts so.
func PaperSession(lib Papers, id string) (string, error) {
	list, err := lib.List()
	if err != nil {
		return "", err
	}
	var match []library.Info
	for _, p := range list {
		if p.ID == id {
			match = []library.Info{p}
			break
		}
		if id != "" && strings.HasPrefix(p.ID, id) {
			match = append(match, p)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("no paper %q in the library (tofu paper list shows their ids)", id)
	case 1:
		return lib.QASession(match[0].ID)
	}
	return "", fmt.Errorf("%d papers have an id starting %q: give more of it", len(match), id)
}

// AnswerNotes say what a paper answer written after event before stands on: the pages and
// sections of the passages it was given, and the pages it cites that none of them is on.
func AnswerNotes(st *store.Store, sid string, before uint64) []string {
	evs, err := st.EventsFrom(sid, before+1)
	if err != nil {
		return nil
	}
	var rec *store.Retrieval
	answer := ""
	for _, ev := range evs {
		switch ev.Type {
		case store.EventRetrieval:
			var r store.Retrieval
			if ev.Decode(&r) == nil {
				rec = &r
			}
		case store.EventAssistant:
			var m store.AssistantMessage
			if ev.Decode(&m) == nil {
				answer += m.Text
			}
		}
	}
	if rec == nil {
		return nil
	}
	var src []string
	for _, c := range rec.Chunks {
		pages := ""
		if len(c.Pages) > 0 {
			pages = fmt.Sprintf("p. %d", c.Pages[0])
			if n := len(c.Pages); n > 1 {
				pages = fmt.Sprintf("pp. %d-%d", c.Pages[0], c.Pages[n-1])
			}
		}
		if c.Section != "" {
			pages += " " + c.Section
		}
		src = append(src, pages)
	}
	notes := []string{"passages: " + strings.Join(src, "; ")}
	if bad := library.UnsupportedCitations(answer, *rec); len(bad) > 0 {
		var pages []string
		for _, p := range bad {
			pages = append(pages, fmt.Sprint(p))
		}
		notes = append(notes, "not in the passages given: cited page "+strings.Join(pages, ", "))
	}
	return notes
}
