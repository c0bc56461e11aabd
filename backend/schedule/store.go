package schedule

import (
	"encoding/json"
	"fmt"
)

// Records is what the schedule keeps its jobs in (the store's small JSON records).
type Records interface {
	PutJSON(key string, v any) error
	GetJSON(key string, v any) (bool, error)
	ListJSON(prefix string, fn func(name string, raw json.RawMessage) error) error
	DeleteJSON(name string) error
}

const prefix = "schedule/"

func list(r Records) ([]Job, error) {
	var out []Job
	err := r.ListJSON(prefix, func(name string, raw json.RawMessage) error {
		var j Job
		if err := json.Unmarshal(raw, &j); err != nil {
			return fmt.Errorf("job %s: %w", name, err)
		}
		out = append(out, j)
		return nil
	})
	return out, err
}

func put(r Records, j Job) error { return r.PutJSON(prefix+j.ID, j) }
