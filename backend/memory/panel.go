package memory

import (
	"errors"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/store"
)

// Panel is the memory panel's: the records of a workspace and the global ones, to list,
// search, edit, switch on and off, delete, and see which turns used one. The window's
// MemoryService (app) is Panel bound to the user interface: every exported method is callable
// from the page.
type Panel struct {
	mem   *Store // nil: no data folder, no memory
	store *store.Store
}

// NewPanel shows the records of mem (nil: none) and their uses in the logs of st.
func NewPanel(mem *Store, st *store.Store) *Panel { return &Panel{mem: mem, store: st} }

// Records is the panel's store of records (nil: none).
func Records(p *Panel) *Store { return p.mem }

var errNoMemory = errors.New("memory is unavailable: Tofu has no data folder")

// Use is a turn a record was recalled into; Seq is the user message that started it.
type Use struct {
	Session string    `json:"session"`
	Title   string    `json:"title"`
	Seq     uint64    `json:"seq"`
	Time    time.Time `json:"time"`
}

// List returns the records of workspace ("" : global only) and the global ones.
func (s *Panel) List(workspace string) ([]Record, error) {
	if s.mem == nil {
		return nil, errNoMemory
	}
	return s.mem.List(workspace)
}

// Search ranks the records for query, disabled ones included (the panel shows them greyed).
func (s *Panel) Search(workspace, query string) ([]Found, error) {
	if s.mem == nil {
		return nil, errNoMemory
	}
	return s.mem.Search(workspace, query, 50, true)
}

// Save creates the record when it has no ID, else replaces its name, description, tags, body
// and enabled state.
func (s *Panel) Save(workspace string, r Record) (Record, error) {
	if s.mem == nil {
		return Record{}, errNoMemory
	}
	if r.ID == "" {
		created, err := s.mem.Create(workspace, r)
		if err != nil || r.Enabled {
			return created, err
		}
		return s.mem.Update(workspace, created.ID, func(c *Record) { c.Enabled = false })
	}
	return s.mem.Update(workspace, r.ID, func(c *Record) {
		c.Name, c.Description, c.Tags, c.Body, c.Enabled = r.Name, r.Description, r.Tags, r.Body, r.Enabled
	})
}

// Delete removes a record's file.
func (s *Panel) Delete(workspace, id string) error {
	if s.mem == nil {
		return errNoMemory
	}
	return s.mem.Delete(workspace, id)
}

// Uses lists the turns the record was recalled into, newest first (it reads every log: a
// panel action, not a hot path).
func (s *Panel) Uses(id string) ([]Use, error) {
	infos, err := s.store.Sessions()
	if err != nil {
		return nil, err
	}
	out := []Use{}
	for _, info := range infos {
		evs, err := s.store.Events(info.ID)
		if err != nil {
			return nil, err
		}
		var user uint64 // the user message a recall rides on: what the transcript shows
		for _, ev := range evs {
			if ev.Type == store.EventUser {
				user = ev.Seq
			}
			if ev.Type != store.EventMemoryRecall || !strings.Contains(string(ev.Data), id) {
				continue
			}
			var m store.MemoryRecall
			if ev.Decode(&m) != nil {
				continue
			}
			for _, r := range m.Records {
				if r.ID == id {
					out = append(out, Use{Session: info.ID, Title: info.Title, Seq: user, Time: ev.Time})
				}
			}
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
