package forward

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/checkpoint"
	"github.com/tofu-research/tofu/backend/trace"
)

// The desk commands (`tofu sessions list|show`, `tofu checkpoints`, `tofu trace`, `tofu myday`,
// `tofu schedule`) read or act on Tofu's store. Beside a running Tofu they are forwarded to
// it; the instance answers with the same function a local command runs (AnswerDesk), on its
// own store.

// DeskOp names what a desk request asks.
type DeskOp string

const (
	DeskShow         DeskOp = "show"          // the session's info and whole log
	DeskPoints       DeskOp = "points"        // the messages the files can be taken back to
	DeskPlan         DeskOp = "plan"          // what an undo since To would do
	DeskRestore      DeskOp = "restore"       // undo the changes since To
	DeskSessions     DeskOp = "sessions"      // list the conversations (tofu sessions list)
	DeskTraceVerify  DeskOp = "trace_verify"  // docs/TRACE.md
	DeskTraceExport  DeskOp = "trace_export"  // docs/TRACE.md
	DeskMyDay        DeskOp = "myday"         // generate a day's report (docs/MYDAY.md)
	DeskScheduleList DeskOp = "schedule_list" // docs/SCHEDULE.md: the instance's scheduler runs the jobs
	DeskScheduleAdd  DeskOp = "schedule_add"
	DeskScheduleRm   DeskOp = "schedule_rm"
)

// DeskRequest is one desk command.
type DeskRequest struct {
	Op      DeskOp        `json:"op"`
	Session string        `json:"session"`
	To      uint64        `json:"to,omitempty"`     // plan, restore: the message the files go back to
	Format  string        `json:"format,omitempty"` // trace_export: the format
	Date    string        `json:"date,omitempty"`   // myday: the day ("" today)
	Job     *schedule.Job `json:"job,omitempty"`    // schedule_add
	Limit   int           `json:"limit,omitempty"`  // sessions: most to list (0: all)
}

// DeskAnswer is what a desk command gets back.
type DeskAnswer struct {
	Info   store.SessionInfo  `json:"info"`
	Events []store.Event      `json:"events,omitempty"`
	Points []checkpoint.Point `json:"points,omitempty"`
	Plan   *checkpoint.Plan   `json:"plan,omitempty"`
	// Refused is set when the undo was refused: files changed since the agent wrote them.
	Refused bool           `json:"refused,omitempty"`
	Trace   *TraceAnswer   `json:"trace,omitempty"`
	Day     *myday.Report  `json:"day,omitempty"`
	Jobs    []schedule.Job `json:"jobs,omitempty"`
	// Sessions answers DeskSessions.
	Sessions []store.SessionInfo `json:"sessions,omitempty"`
}

// TraceAnswer is what a trace operation found or wrote.
type TraceAnswer struct {
	Calls    int    `json:"calls"`
	Verified int    `json:"verified"`
	Mismatch string `json:"mismatch,omitempty"` // the first call that does not agree with the log
	// Checked says how the calls were checked and what came from outside the log.
	Checked []string `json:"checked,omitempty"`
	Export  string   `json:"export,omitempty"`
}

// AnswerDesk answers req on st (a local command's store, or the instance's). busy says
// whether a turn runs in the session (an instance's; a local command runs none). My Day and
// the schedule need the app's services: AnswerMyDay, AnswerSchedule.
func AnswerDesk(st *store.Store, req DeskRequest, busy func(string) bool) (DeskAnswer, error) {
	if req.Op == DeskSessions {
		return answerSessions(st, req.Limit)
	}
	info, err := st.Session(req.Session)
	if err != nil {
		return DeskAnswer{}, fmt.Errorf("no conversation %q (tofu sessions search finds one): %w", req.Session, err)
	}
	ans := DeskAnswer{Info: info}
	switch req.Op {
	case DeskTraceVerify, DeskTraceExport:
		return answerTrace(st, req, ans)
	case DeskShow:
		ans.Events, err = st.Events(req.Session)
		return ans, err
	case DeskPoints:
		evs, err := st.Events(req.Session)
		ans.Points = checkpoint.List(evs)
		return ans, err
	case DeskPlan, DeskRestore:
		if info.Workspace == "" {
			return ans, errors.New("this conversation has no workspace: no file was changed")
		}
		ws, err := session.ResolveWorkspace(info.Workspace)
		if err != nil {
			return ans, err
		}
		var plan checkpoint.Plan
		if req.Op == DeskPlan {
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
	return DeskAnswer{}, fmt.Errorf("bad request: unknown desk operation %q", req.Op)
}

// answerSessions lists st's conversations as the window's sidebar does: not a paper's internal
// sessions, not the trash; most recent activity first; at most limit (0: all).
func answerSessions(st *store.Store, limit int) (DeskAnswer, error) {
	all, err := st.Sessions()
	list := []store.SessionInfo{}
	for _, info := range all {
		if info.Internal() || info.InTrash() || info.Stub() {
			continue
		}
		if limit > 0 && len(list) == limit {
			break
		}
		list = append(list, info)
	}
	return DeskAnswer{Sessions: list}, err
}

// answerTrace runs a trace operation on st (here or in the running Tofu).
func answerTrace(st *store.Store, req DeskRequest, ans DeskAnswer) (DeskAnswer, error) {
	ans.Trace = &TraceAnswer{}
	if req.Op == DeskTraceExport {
		var buf bytes.Buffer
		err := trace.Export(&buf, st, req.Session, req.Format)
		ans.Trace.Export = buf.String()
		return ans, err
	}
	res, err := trace.Verify(st, req.Session)
	ans.Trace.Calls, ans.Trace.Verified, ans.Trace.Checked = res.Calls, res.Verified, res.Summary()
	var m *trace.Mismatch
	if errors.As(err, &m) {
		ans.Trace.Mismatch, err = m.Error(), nil
	}
	return ans, err
}

// AnswerMyDay generates the report req.Date asks for with generate (the app's My Day).
func AnswerMyDay(generate func(date string) (myday.Report, error), req DeskRequest) (DeskAnswer, error) {
	r, err := generate(req.Date)
	return DeskAnswer{Day: &r}, err
}

// AnswerSchedule runs a schedule operation on s.
func AnswerSchedule(s *schedule.Scheduler, req DeskRequest) (DeskAnswer, error) {
	var ans DeskAnswer
	var err error
	switch req.Op {
	case DeskScheduleAdd:
		var j schedule.Job
		if req.Job != nil {
			j = *req.Job
		}
		j, err = s.Add(j)
		ans.Jobs = []schedule.Job{j}
	case DeskScheduleRm:
		err = s.Remove(req.Session)
	default:
		ans.Jobs, err = s.List()
	}
	return ans, err
}

// desk answers a forwarded desk command with the instance's store and services.
func (in *instance) desk(req DeskRequest) (DeskAnswer, error) {
	switch req.Op {
	case DeskMyDay:
		return AnswerMyDay(in.app.MyDay, req)
	case DeskScheduleList, DeskScheduleAdd, DeskScheduleRm:
		return AnswerSchedule(in.app.Scheduler(), req)
	}
	return AnswerDesk(in.app.Store(), req, in.app.Runner().Busy)
}
