package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// ScheduleService is the schedule view: the jobs, added and removed, and their runs
// (docs/SCHEDULE.md). The scheduler runs while the window or `tofu serve` is open.
type ScheduleService struct {
	s *schedule.Scheduler
}

// ScheduleTopic is the event topic telling the window the jobs changed.
const ScheduleTopic = "schedule"

func newScheduleService(st *store.Store, runner *session.Runner, call oneshot.Func, settings *SettingsService,
	emit Emitter, report func(context.Context, time.Time) (string, error)) *ScheduleService {
	exec := &scheduleExec{st: st, runner: runner, call: call, report: report, cheap: func() string {
		cfg, err := settings.config()
		if err != nil {
			return ""
		}
		if cfg.Models.Cheap != "" {
			return cfg.Models.Cheap
		}
		return cfg.Models.Main
	}}
	return &ScheduleService{s: schedule.New(schedule.Options{Records: st, Exec: exec,
		Changed: func() { emit.Emit(ScheduleTopic, "changed") }})}
}

// Scheduler is the app's scheduler (the schedule tools and `tofu schedule` use it).
func (s *ScheduleService) Scheduler() *schedule.Scheduler { return s.s }

// List returns the jobs, the next due first, with their latest runs.
func (s *ScheduleService) List() ([]schedule.Job, error) { return s.s.List() }

// Add stores a new job.
func (s *ScheduleService) Add(j schedule.Job) (schedule.Job, error) { return s.s.Add(j) }

// Remove deletes a job.
func (s *ScheduleService) Remove(id string) error { return s.s.Remove(id) }

// RunScheduler runs the scheduler until ctx ends: the window and `tofu serve` call it, so
// jobs run while Tofu is open; runs missed while it was closed are recorded at the start.
func (a *App) RunScheduler(ctx context.Context) error { return a.Schedule.s.Run(ctx) }

// scheduleExec runs a due job through the turn runner: every run is a session.
type scheduleExec struct {
	st     *store.Store
	runner *session.Runner
	call   oneshot.Func // the watch's check
	cheap  func() string
	// report writes the My Day report of the day a time falls on (the session of its prose).
	report func(ctx context.Context, due time.Time) (string, error)
}

func (e *scheduleExec) Run(ctx context.Context, j schedule.Job, due time.Time) (string, bool, error) {
	switch j.Kind {
	case schedule.KindPrompt:
		return e.send(ctx, j, j.Session, "", session.Message{Text: j.Prompt}, session.Request{})
	case schedule.KindAgent:
		return e.send(ctx, j, "", j.Workspace, session.Message{Text: j.Prompt}, session.Request{})
	case schedule.KindCommand:
		return e.command(ctx, j)
	case schedule.KindWatch:
		return e.watch(ctx, j, due)
	case schedule.KindMyDay:
		if e.report == nil {
			return "", false, fmt.Errorf("My Day is not available here")
		}
		id, err := e.report(ctx, due)
		return id, err == nil, err
	}
	return "", false, fmt.Errorf("unknown job kind %q", j.Kind)
}

// send sends m into the conversation id (or a new one named after the job, in workspace) and
// runs the turn to its end: the run held once its conversation has the message, and fails
// with the turn (a command's single step may end at its step bound).
func (e *scheduleExec) send(ctx context.Context, j schedule.Job, id, workspace string, m session.Message, req session.Request) (string, bool, error) {
	m.Session, m.Title = id, "⏰ "+j.Name
	if workspace != "" {
		m.Setup = func(i *store.SessionInfo) { i.Workspace = workspace }
	}
	sent, err := e.runner.Send(ctx, m, req)
	if err != nil {
		return sent.Session, sent.Session != "", err
	}
	end := sent.Turn.Wait()
	switch {
	case end.Err != nil:
		return sent.Session, true, end.Err
	case end.Reason != store.EndDone && !(req.MaxSteps > 0 && end.Reason == store.EndMaxSteps):
		return sent.Session, true, fmt.Errorf("the turn ended: %s", end.Reason)
	}
	return sent.Session, true, nil
}

// command runs the job's command in its workspace as a run_command call the scheduler
// makes (the assistant event says model "schedule"): the call goes through the approval
// service like any agent's, so the window's card (or a rule) decides, and the model then
// reads the output in one reply.
func (e *scheduleExec) command(ctx context.Context, j schedule.Job) (string, bool, error) {
	args, _ := json.Marshal(map[string]string{"command": j.Command})
	return e.send(ctx, j, "", j.Workspace, session.Message{
		Text: "Scheduled command (" + j.Name + "): " + j.Command + "\nReport what it printed.",
		Then: []store.Entry{{Type: store.EventAssistant, Payload: store.AssistantMessage{Model: "schedule",
			ToolCalls: []llm.ToolCall{{ID: "schedule-" + j.ID, Name: "run_command", Arguments: args}}}}},
	}, session.Request{MaxSteps: 1})
}

// watch asks the cheap model whether the condition holds (its call logged in a session of
// purpose schedule) and, when it does, sends the job's prompt into its conversation.
func (e *scheduleExec) watch(ctx context.Context, j schedule.Job, due time.Time) (string, bool, error) {
	last := ""
	if evs, err := e.st.Events(j.Session); err == nil {
		for _, m := range agent.Messages(evs) {
			if m.Role == llm.RoleAssistant && strings.TrimSpace(m.Content) != "" {
				last = m.Content
			}
		}
	}
	q := fmt.Sprintf("Condition: %s\nNow: %s\nThe conversation's last reply:\n%s", j.Condition, due.Format(time.RFC1123), last)
	reply, err := e.call(ctx, oneshot.Call{Title: "⏰ " + j.Name + " (check)", Purpose: store.PurposeSchedule,
		Model: e.cheap(), System: assets.Prompt("schedule_watch"), Text: q})
	if err != nil {
		return reply.Session, false, err
	}
	if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(reply.Text)), "YES") {
		return reply.Session, false, nil
	}
	return e.send(ctx, j, j.Session, "", session.Message{Text: j.Prompt}, session.Request{})
}
