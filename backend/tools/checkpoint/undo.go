package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/udiff"
)

// An undo since event S takes every change recorded after S, in any branch (the files on disk
// went through all of them, in the order of the log): for each file, the content before its
// first change is what is written back, and the content after its last change is what the
// file must still hold. A file that holds anything else changed since the agent wrote it: the
// undo is refused, with the diff from the agent's version to what is there now.
//
// Every write goes through an os.Root on the workspace: no path, and no symlink swapped in
// after the agent wrote (a file or any directory above it), leads outside the workspace. A
// file is replaced by a rename, so a symlink in its place is replaced, never followed.

// Action is what an undo does to one file.
type Action string

const (
	Restore  Action = "restore"  // write back the content before
	Remove   Action = "remove"   // the agent created it: delete it
	Recreate Action = "recreate" // the agent deleted it: write it back
)

// Step is one file an undo writes back, with the diff from what is there to what will be.
type Step struct {
	Path     string `json:"path"`
	Action   Action `json:"action"`
	Before   string `json:"before,omitempty"`   // the hash written back ("": removed)
	Expected string `json:"expected,omitempty"` // the hash the file holds now, as the agent left it
	Mode     uint32 `json:"mode,omitempty"`
	Diff     string `json:"diff,omitempty"`
	Binary   bool   `json:"binary,omitempty"` // no text diff
}

// Conflict is a file that changed since the agent wrote it: the diff from the agent's
// version to what is there now.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Diff   string `json:"diff,omitempty"`
	Binary bool   `json:"binary,omitempty"`
}

// Plan is what an undo of the changes after event Since would do; with conflicts it does
// nothing.
type Plan struct {
	Since     uint64     `json:"since"`
	Steps     []Step     `json:"steps"`
	Conflicts []Conflict `json:"conflicts"`
}

// Changes are the recorded changes of a log after event since, in order.
func Changes(events []store.Event, since uint64) []store.FileChange {
	var out []store.FileChange
	for _, ev := range events {
		if ev.Seq <= since {
			continue
		}
		switch ev.Type {
		case store.EventToolResult:
			var r store.ToolResult
			if ev.Decode(&r) == nil {
				out = append(out, r.Checkpoint...)
			}
		case store.EventCheckpointRestore:
			var r store.CheckpointRestore
			if ev.Decode(&r) == nil {
				out = append(out, r.Files...)
			}
		}
	}
	return out
}

// PlanUndo plans the undo of the changes after event since in workspace.
func PlanUndo(blobs Blobs, workspace string, events []store.Event, since uint64) (Plan, error) {
	plan := Plan{Since: since, Steps: []Step{}, Conflicts: []Conflict{}}
	type span struct {
		first, last store.FileChange
	}
	spans := map[string]*span{}
	var order []string
	for _, c := range Changes(events, since) {
		if s := spans[c.Path]; s != nil {
			s.last = c
			continue
		}
		spans[c.Path] = &span{first: c, last: c}
		order = append(order, c.Path)
	}
	if len(order) == 0 {
		return plan, nil
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return plan, fmt.Errorf("open the workspace %s: %w", workspace, err)
	}
	defer root.Close()
	sort.Strings(order)
	for _, p := range order {
		s := spans[p]
		target, expected := s.first.Before, s.last.After
		if target == expected {
			continue // changed and changed back
		}
		if !fs.ValidPath(p) {
			plan.Conflicts = append(plan.Conflicts, Conflict{Path: p, Reason: "not a path inside the workspace"})
			continue
		}
		current, data, why := readCurrent(root, p)
		if why != "" || current != expected {
			c := Conflict{Path: p, Reason: why}
			if c.Reason == "" {
				c.Reason = "changed since the agent wrote it"
				agent, _ := content(blobs, expected)
				c.Diff, c.Binary = diff(p, agent, data)
			}
			plan.Conflicts = append(plan.Conflicts, c)
			continue
		}
		st := Step{Path: p, Action: Restore, Before: target, Expected: expected, Mode: s.first.Mode}
		switch {
		case target == "":
			st.Action = Remove
		case expected == "":
			st.Action = Recreate
		}
		old, err := content(blobs, target)
		if err != nil {
			plan.Conflicts = append(plan.Conflicts, Conflict{Path: p, Reason: "its earlier content is not in Tofu's store: " + err.Error()})
			continue
		}
		st.Diff, st.Binary = diff(p, data, old)
		plan.Steps = append(plan.Steps, st)
	}
	return plan, nil
}

// Apply carries out a plan without conflicts and returns the changes it made (to record as a
// checkpoint_restore). Each file is checked again just before it is written; on a failure the
// changes made so far are returned with the error.
func Apply(blobs Blobs, workspace string, plan Plan) ([]store.FileChange, error) {
	if len(plan.Conflicts) > 0 {
		return nil, fmt.Errorf("%d files changed since the agent wrote them (%s…): nothing was undone", len(plan.Conflicts), plan.Conflicts[0].Path)
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, fmt.Errorf("open the workspace %s: %w", workspace, err)
	}
	defer root.Close()
	var done []store.FileChange
	for _, st := range plan.Steps {
		if current, _, why := readCurrent(root, st.Path); why != "" || current != st.Expected {
			return done, fmt.Errorf("%s changed while undoing: stopped there", st.Path)
		}
		if err := writeBack(blobs, root, st); err != nil {
			return done, fmt.Errorf("undo %s: %w", st.Path, err)
		}
		done = append(done, store.FileChange{Path: st.Path, Before: st.Expected, After: st.Before, Mode: st.Mode, By: "restore"})
	}
	return done, nil
}

// readCurrent reads p in root: its hash and content ("" and nil when missing), or why it
// cannot be compared (a directory, a symlink, too large).
func readCurrent(root *os.Root, p string) (string, []byte, string) {
	fi, err := root.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, ""
	case err != nil:
		return "", nil, "cannot be read: " + err.Error()
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", nil, "is now a symbolic link"
	case !fi.Mode().IsRegular():
		return "", nil, "is no longer a regular file"
	case fi.Size() > MaxFile:
		return "", nil, "is now larger than a checkpoint records"
	}
	data, err := root.ReadFile(p)
	if err != nil {
		return "", nil, "cannot be read: " + err.Error()
	}
	return hashOf(data), data, ""
}

// writeBack puts st.Before in place of st.Path (or removes it).
func writeBack(blobs Blobs, root *os.Root, st Step) error {
	if st.Before == "" {
		return root.Remove(st.Path)
	}
	data, err := content(blobs, st.Before)
	if err != nil {
		return err
	}
	if dir := path.Dir(st.Path); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	mode := fs.FileMode(st.Mode).Perm()
	if mode == 0 {
		mode = 0o644
	}
	tmp := path.Join(path.Dir(st.Path), fmt.Sprintf(".%s.tofu-undo-%d", path.Base(st.Path), time.Now().UnixNano()))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = root.Chmod(tmp, mode) // the umask narrowed it
	}
	if werr == nil {
		werr = root.Rename(tmp, st.Path)
	}
	if werr != nil {
		root.Remove(tmp)
	}
	return werr
}

// content is the recorded content of hash ("": no file, nil).
func content(blobs Blobs, hash string) ([]byte, error) {
	if hash == "" {
		return nil, nil
	}
	data, err := blobs.BlobBytes(store.CheckpointBlobKey(hash))
	if err != nil {
		return nil, err
	}
	if hashOf(data) != hash {
		return nil, fmt.Errorf("the recorded content of %s is damaged", hash[:12])
	}
	return data, nil
}

// diff is the unified diff from a to b, or binary when either is not text.
func diff(name string, a, b []byte) (string, bool) {
	if isBinary(a) || isBinary(b) {
		return "", true
	}
	d, _ := udiff.Unified(name, string(a), string(b), 3)
	return d, false
}

func isBinary(b []byte) bool {
	head := b[:min(len(b), 8000)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if len(head) < len(b) { // the cut may split a character
		for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
			head = head[:len(head)-1]
		}
	}
	return !utf8.Valid(head)
}
