package app

import (
	"errors"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/store"
)

// MemoryService is the memory panel's: the records of a workspace and the global ones, to
// list, search, edit, switch on and off, delete, and see which turns used one.
type MemoryService struct {
	mem   *memory.Store // nil: no data folder, no memory
	store *store.Store
}

var errNoMemory = errors.New("memory is unavailable: Tofu has no data folder")

// MemoryUse is a turn a record was recalled into; Seq is the user message that started it.
type MemoryUse struct {
	Session string    `json:"session"`
	Title   string    `json:"title"`
	Seq     uint64    `json:"seq"`
	Time    time.Time `json:"time"`
}

// List returns the records of workspace ("" : global only) and the global ones.
func (s *MemoryService) List(workspace string) ([]memory.Record, error) {
	if s.mem == nil {
		return nil, errNoMemory
	}
	return s.mem.List(workspace)
}

// Search ranks the records for query, disabled ones included (the panel shows them greyed).
func (s *MemoryService) Search(workspace, query string) ([]memory.Found, error) {
	if s.mem == nil {
		return nil, errNoMemory
	}
	return s.mem.Search(workspace, query, 50, true)
}

// Save creates the record when it has no ID, else replaces its name, description, tags, body
// and enabled state.
func (s *MemoryService) Save(workspace string, r memory.Record) (memory.Record, error) {
	if s.mem == nil {
		return memory.Record{}, errNoMemory
	}
	if r.ID == "" {
		created, err := s.mem.Create(workspace, r)
		if err != nil || r.Enabled {
			return created, err
		}
		return s.mem.Update(workspace, created.ID, func(c *memory.Record) { c.Enabled = false })
	}
	return s.mem.Update(workspace, r.ID, func(c *memory.Record) {
		c.Name, c.Description, c.Tags, c.Body, c.Enabled = r.Name, r.Description, r.Tags, r.Body, r.Enabled
	})
}

// Delete removes a record's file.
func (s *MemoryService) Delete(workspace, id string) error {
	if s.mem == nil {
		return errNoMemory
	}
	return s.mem.Delete(workspace, id)
}

// Uses lists the turns the record was recalled into, newest first (it reads every log: a
// panel action, not a hot path).
func (s *MemoryService) Uses(id string) ([]MemoryUse, error) {
	infos, err := s.store.Sessions()
	if err != nil {
		return nil, err
	}
	out := []MemoryUse{}
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
					out = append(out, MemoryUse{Session: info.ID, Title: info.Title, Seq: user, Time: ev.Time})
				}
			}
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
