package sandbox

import (
	"os"
	"slices"
	"sync"
)

// Temp is the folder sandboxed processes see as /tmp: a session's commands share one, an MCP
// server, an external agent's run or a suite's tests have one each. It is made on first use
// and removed, with all it holds, by Remove. The zero value is ready; it is safe for
// concurrent use.
type Temp struct {
	mu  sync.Mutex
	dir string
}

// Path returns the folder, made now if it is not yet.
func (t *Temp) Path() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir == "" {
		d, err := os.MkdirTemp("", "tofu-sandbox-*")
		if err != nil {
			return "", err
		}
		t.dir = d
	}
	return t.dir, nil
}

// Remove deletes the folder and what the processes left in it; a later Path makes a new one.
func (t *Temp) Remove() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir != "" {
		_ = os.RemoveAll(t.dir)
		t.dir = ""
	}
}

// Around returns a copy of the template b for one process: working in workspace, with temp as
// its /tmp. The copy shares no list with b, so appending to its lists leaves b as it was.
func (b Boundary) Around(workspace, temp string) Boundary {
	b.Workspace, b.Temp = workspace, temp
	b.Hidden, b.Expose, b.Writable = slices.Clone(b.Hidden), slices.Clone(b.Expose), slices.Clone(b.Writable)
	return b
}
