package session

import (
	"errors"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/store"
)

// A session's own settings (workspace, mode, recall, reasoning effort, translation) change
// only between turns: each setter checks its value, and is refused with ErrBusy while a turn
// runs in the session (a turn cannot start while the change is written).

// SetWorkspace makes dir the session's workspace: its turns then run the coding agent with
// tools in that directory. dir must be an existing directory ("~" is the home directory); it is
// stored absolute. An empty dir clears the workspace (plain chat again).
func (r *Runner) SetWorkspace(id, dir string) error {
	ws, err := ResolveWorkspace(dir)
	if err != nil {
		return err
	}
	return r.configure(id, func(i store.SessionInfo) error {
		if i.Paper != "" && ws != "" {
			return errors.New("a paper's conversation cannot have a workspace")
		}
		return nil
	}, func(i *store.SessionInfo) { i.Workspace = ws })
}

// SetMode sets how the session's agent turns run: "chat" (the tool loop) or "autonomous"
// (planner → worker → critic with a verification gate); refused for a paper's sessions.
func (r *Runner) SetMode(id, mode string) error {
	m, err := NormalizeMode(mode)
	if err != nil {
		return err
	}
	return r.configure(id, func(i store.SessionInfo) error {
		if i.Paper != "" && m != "" {
			return errors.New("a paper's conversation has no autonomous mode")
		}
		return nil
	}, func(i *store.SessionInfo) { i.Mode = m })
}

// SetRecall turns memory recall on or off for the session's turns.
func (r *Runner) SetRecall(id string, on bool) error {
	return r.configure(id, nil, func(i *store.SessionInfo) { i.RecallOff = !on })
}

// SetThinking sets the session's reasoning effort (off, low, medium or high; "" follows the
// settings).
func (r *Runner) SetThinking(id, level string) error {
	if err := config.CheckThinking(level); err != nil {
		return err
	}
	return r.configure(id, nil, func(i *store.SessionInfo) { i.Thinking = level })
}

// SetTranslate turns translate-then-reason on or off for the session (translate.go).
func (r *Runner) SetTranslate(id string, on bool) error {
	return r.configure(id, nil, func(i *store.SessionInfo) { i.Translate = on })
}

// configure applies set to the session unless a turn runs in it or check refuses it. The
// runner's lock is held meanwhile, so no turn starts on the settings half-changed.
func (r *Runner) configure(id string, check func(store.SessionInfo) error, set func(*store.SessionInfo)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[id] != nil {
		return ErrBusy
	}
	if check != nil {
		info, err := r.o.Store.Session(id)
		if err != nil {
			return err
		}
		if err := check(info); err != nil {
			return err
		}
	}
	_, err := r.o.Store.UpdateSession(id, set)
	return err
}
