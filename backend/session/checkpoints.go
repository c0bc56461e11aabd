package session

import (
	"errors"

	"github.com/tofu-research/tofu/backend/tools/checkpoint"
)

// Checkpoints: the files an agent's calls changed are recorded on their tool results
// (backend/tools/checkpoint); these undo them since a message of the session.

// PlanUndo says what UndoChanges would do to the files changed after event since: the files,
// the diffs, and the files that changed since the agent wrote them (which refuse the undo).
func (r *Runner) PlanUndo(session string, since uint64) (checkpoint.Plan, error) {
	ws, err := r.workspaceOf(session)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	events, err := r.o.Store.Events(session)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	return checkpoint.PlanUndo(r.o.Store, ws, events, since)
}

// UndoChanges takes the session's workspace back to what it was before the changes recorded
// after event since (refused while a turn runs, and with checkpoint.ErrConflict when a file
// changed since the agent wrote it: then nothing is written).
func (r *Runner) UndoChanges(session string, since uint64) (checkpoint.Plan, error) {
	if r.Busy(session) {
		return checkpoint.Plan{}, ErrBusy
	}
	ws, err := r.workspaceOf(session)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	return checkpoint.Undo(r.o.Store, session, ws, since)
}

func (r *Runner) workspaceOf(session string) (string, error) {
	info, err := r.o.Store.Session(session)
	if err != nil {
		return "", err
	}
	if info.Workspace == "" {
		return "", errors.New("this conversation has no workspace: no file was changed")
	}
	return ResolveWorkspace(info.Workspace)
}
