package coding

import (
	"os"
	"sync"

	"github.com/tofu-research/tofu/backend/sandbox"
	"github.com/tofu-research/tofu/backend/tools"
)

// boundary is the sandbox a call's commands run in: the toolbox's, around the call's
// workspace and the session's temporary folder, extended by what a person approved for this
// call (tools.Call.Crossing). nil when commands run unconfined.
func (js *Jobs) boundary(call tools.Call) (*sandbox.Boundary, error) {
	if js.opts.Sandbox == nil {
		return nil, nil
	}
	temp, err := js.temp.path()
	if err != nil {
		return nil, err
	}
	b := js.opts.Sandbox.Extend(call.Crossing.Writable, call.Crossing.Reveal)
	b.Workspace, b.Temp = call.Workspace, temp
	// The clean git config lives in the host's /tmp, which the session's replaces.
	b.Expose = append(append([]string(nil), b.Expose...), js.git.globalFile())
	return &b, nil
}

// sessionTemp is the folder a session's sandboxed commands see as /tmp, made on first use and
// removed when the session's toolbox closes.
type sessionTemp struct {
	mu  sync.Mutex
	dir string
}

func (t *sessionTemp) path() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir == "" {
		d, err := os.MkdirTemp("", "tofu-session-*")
		if err != nil {
			return "", err
		}
		t.dir = d
	}
	return t.dir, nil
}

func (t *sessionTemp) remove() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dir != "" {
		_ = os.RemoveAll(t.dir)
		t.dir = ""
	}
}
