package checkpoint

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/tofu-research/tofu/backend/store"
)

// Point is a message the files can be taken back to: the user message Seq of the active path,
// and the files that differ from what they were then (changed since by any branch, and not
// changed back or undone).
type Point struct {
	Seq   uint64    `json:"seq"`
	Text  string    `json:"text"`
	Time  time.Time `json:"time"`
	Files []string  `json:"files"`
}

// List is the session's points with files to take back, oldest first.
func List(events []store.Event) []Point {
	out := []Point{}
	for _, ev := range store.ActivePath(events) {
		var u store.UserMessage
		if ev.Type != store.EventUser || ev.Decode(&u) != nil {
			continue
		}
		files := differing(Changes(events, ev.Seq))
		if len(files) > 0 {
			out = append(out, Point{Seq: ev.Seq, Text: u.Text, Time: ev.Time, Files: files})
		}
	}
	return out
}

// Log is what an undo needs of the store: the session's log to read and append to, and the
// recorded contents.
type Log interface {
	Blobs
	Events(session string) ([]store.Event, error)
	Append(session string, typ store.EventType, payload any) (store.Event, error)
}

// ErrConflict is in the error of an undo refused because files changed since the agent wrote
// them (the plan says which, with diffs).
var ErrConflict = errors.New("files changed since the agent wrote them")

// Undo takes the files of workspace back to what they were before the changes recorded after
// event since, and records it (checkpoint_restore). With conflicts nothing is written: the plan
// is returned with ErrConflict.
func Undo(log Log, session, workspace string, since uint64) (Plan, error) {
	events, err := log.Events(session)
	if err != nil {
		return Plan{}, err
	}
	plan, err := PlanUndo(log, workspace, events, since)
	if err != nil {
		return plan, err
	}
	if len(plan.Conflicts) > 0 {
		return plan, fmt.Errorf("%w: %d files, nothing was undone", ErrConflict, len(plan.Conflicts))
	}
	if len(plan.Steps) == 0 {
		return plan, nil
	}
	done, err := Apply(log, workspace, plan)
	if len(done) > 0 {
		if _, aerr := log.Append(session, store.EventCheckpointRestore, store.CheckpointRestore{Since: since, Files: done}); aerr != nil && err == nil {
			err = fmt.Errorf("the files were restored but the log could not say so: %w", aerr)
		}
	}
	return plan, err
}

// differing are the paths whose content before the first of changes differs from the content
// after the last, sorted: what an undo would write.
func differing(changes []store.FileChange) []string {
	first, last := map[string]string{}, map[string]string{}
	for _, c := range changes {
		if _, ok := first[c.Path]; !ok {
			first[c.Path] = c.Before
		}
		last[c.Path] = c.After
	}
	out := []string{}
	for p, before := range first {
		if before != last[p] {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
