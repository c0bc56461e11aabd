package cli

import (
	"errors"
	"fmt"

	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/checkpoint"
	"github.com/tofu-research/tofu/backend/usersock"
)

// The desk commands (`tofu sessions show`, `tofu checkpoints`) read or act on one session's
// log. Beside a running Tofu they are forwarded to it over the command socket; the instance
// answers with the same function a local command runs (answerDesk), on its own store.

// deskOp names what a desk request asks.
type deskOp string

const (
	deskShow    deskOp = "show"    // the session's info and whole log
	deskPoints  deskOp = "points"  // the messages the files can be taken back to
	deskPlan    deskOp = "plan"    // what an undo since To would do
	deskRestore deskOp = "restore" // undo the changes since To
)

// deskRequest is one desk command.
type deskRequest struct {
	Op      deskOp        `json:"op"`
	Session string        `json:"session"`
	To      uint64        `json:"to,omitempty"`     // plan, restore: the message the files go back to
	Format  string        `json:"format,omitempty"` // trace_export: the format
	Date    string        `json:"date,omitempty"`   // myday: the day ("" today)
	Job     *schedule.Job `json:"job,omitempty"`    // schedule_add
	Limit   int           `json:"limit,omitempty"`  // sessions: most to list (0: all)
}

// deskAnswer is what a desk command gets back.
type deskAnswer struct {
	Info   store.SessionInfo  `json:"info"`
	Events []store.Event      `json:"events,omitempty"`
	Points []checkpoint.Point `json:"points,omitempty"`
	Plan   *checkpoint.Plan   `json:"plan,omitempty"`
	// Refused is set when the undo was refused: files changed since the agent wrote them.
	Refused bool           `json:"refused,omitempty"`
	Trace   *traceAnswer   `json:"trace,omitempty"`
	Day     *myday.Report  `json:"day,omitempty"`
	Jobs    []schedule.Job `json:"jobs,omitempty"`
	// Sessions answers deskSessions.
	Sessions []store.SessionInfo `json:"sessions,omitempty"`
}

// deskCall runs req here, or in the running Tofu when there is one.
func deskCall(req deskRequest) (deskAnswer, error) {
	st, inst, err := attach()
	if err != nil {
		return deskAnswer{}, err
	}
	if inst != nil {
		return forwardDesk(inst, req)
	}
	defer st.Close()
	return answerDesk(st, req, func(string) bool { return false })
}

// answerDesk answers req on st (a local command's store, or the instance's). busy says
// whether a turn runs in the session (an instance's; a local command runs none).
func answerDesk(st *store.Store, req deskRequest, busy func(string) bool) (deskAnswer, error) {
	if req.Op == deskSessions {
		return answerSessions(st, req.Limit)
	}
	info, err := st.Session(req.Session)
	if err != nil {
		return deskAnswer{}, fmt.Errorf("no conversation %q (tofu sessions search finds one): %w", req.Session, err)
	}
	ans := deskAnswer{Info: info}
	switch req.Op {
	case deskTraceVerify, deskTraceExport:
		return answerTrace(st, req, ans)
	case deskShow:
		ans.Events, err = st.Events(req.Session)
		return ans, err
	case deskPoints:
		evs, err := st.Events(req.Session)
		ans.Points = checkpoint.List(evs)
		return ans, err
	case deskPlan, deskRestore:
		if info.Workspace == "" {
			return ans, errors.New("this conversation has no workspace: no file was changed")
		}
		ws, err := session.ResolveWorkspace(info.Workspace)
		if err != nil {
			return ans, err
		}
		var plan checkpoint.Plan
		if req.Op == deskPlan {
			var evs []store.Event
			if evs, err = st.Events(req.Session); err == nil {
				plan, err = checkpoint.PlanUndo(st, ws, evs, req.To)
			}
		} else {
			if busy(req.Session) {
				return ans, session.ErrBusy
			}
			plan, err = checkpoint.Undo(st, req.Session, ws, req.To)
			if errors.Is(err, checkpoint.ErrConflict) {
				ans.Refused, err = true, nil
			}
		}
		ans.Plan = &plan
		return ans, err
	}
	return deskAnswer{}, fmt.Errorf("bad request: unknown desk operation %q", req.Op)
}

// forwardDesk asks the running Tofu behind c to answer req.
func forwardDesk(c *usersock.Conn, req deskRequest) (deskAnswer, error) {
	defer c.Close()
	if err := c.Send(forwardRequest{Version: forwardVersion, Tofu: Version, Desk: &req}); err != nil {
		return deskAnswer{}, err
	}
	var f forwardOutput
	if err := c.Recv(&f); err != nil {
		return deskAnswer{}, fmt.Errorf("the running Tofu closed the connection before answering: %w", err)
	}
	if f.Error != nil {
		return deskAnswer{}, f.Error.err()
	}
	if f.Desk == nil {
		return deskAnswer{}, errors.New("the running Tofu answered something else than the command")
	}
	return *f.Desk, nil
}

// desk answers a forwarded desk command on the instance's store.
func (in *instance) desk(req deskRequest) (deskAnswer, error) {
	switch req.Op {
	case deskMyDay:
		return answerMyDay(in.a, req)
	case deskScheduleList, deskScheduleAdd, deskScheduleRm:
		return answerSchedule(in.a.Schedule.Scheduler(), req)
	}
	return answerDesk(in.st, req, in.a.Runner.Busy)
}
