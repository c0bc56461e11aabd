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

func newScheduleService(st *store.Store, runner *session.Runner, providers *providerCache, settings *SettingsService,
	price func(string, llm.Usage) float64, emit Emitter, report func(context.Context, time.Time) (string, error)) *ScheduleService {
	exec := &scheduleExec{st: st, runner: runner, provider: providers.get, price: price, report: report, cheap: func() string {
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
	st       *store.Store
	runner   *session.Runner
	provider func() (llm.Provider, error)
	price    func(string, llm.Usage) float64
	cheap    func() string
	// report writes the My Day report of the day a time falls on (the session of its prose).
	report func(ctx context.Context, due time.Time) (string, error)
}

func (e *scheduleExec) Run(ctx context.Context, j schedule.Job, due time.Time) (string, bool, error) {
	switch j.Kind {
	case schedule.KindPrompt:
		id, err := e.session(j, j.Session, "")
		if err != nil {
			return "", false, err
		}
		return id, true, e.turn(ctx, id, j.Prompt, session.Request{})
	case schedule.KindAgent:
		id, err := e.session(j, "", j.Workspace)
		if err != nil {
			return "", false, err
		}
		return id, true, e.turn(ctx, id, j.Prompt, session.Request{})
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

// session returns the conversation a run goes into: id, or a new one named after the job.
func (e *scheduleExec) session(j schedule.Job, id, workspace string) (string, error) {
	if id != "" {
		_, err := e.st.Session(id)
		return id, err
	}
	info, err := e.st.CreateSession("⏰ " + j.Name)
	if err != nil {
		return "", err
	}
	if workspace != "" {
		if _, err := e.st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Workspace = workspace }); err != nil {
			return "", err
		}
	}
	return info.ID, nil
}

// turn sends text into the session and runs the turn to its end.
func (e *scheduleExec) turn(ctx context.Context, id, text string, req session.Request) error {
	if _, err := e.st.Append(id, store.EventUser, store.UserMessage{Text: text}); err != nil {
		return err
	}
	req.Session = id
	end, err := e.runner.Run(ctx, req)
	if err != nil {
		return err
	}
	if end.Reason != store.EndDone {
		if end.Err != nil {
			return end.Err
		}
		return fmt.Errorf("the turn ended: %s", end.Reason)
	}
	return nil
}

// command runs the job's command in its workspace as a run_command call the scheduler
// makes (the assistant event says model "schedule"): the call goes through the approval
// service like any agent's, so the window's card (or a rule) decides, and the model then
// reads the output in one reply.
func (e *scheduleExec) command(ctx context.Context, j schedule.Job) (string, bool, error) {
	id, err := e.session(j, "", j.Workspace)
	if err != nil {
		return "", false, err
	}
	args, _ := json.Marshal(map[string]string{"command": j.Command})
	_, err = e.st.AppendBatch(id,
		store.Entry{Type: store.EventUser, Payload: store.UserMessage{Text: "Scheduled command (" + j.Name + "): " + j.Command + "\nReport what it printed."}},
		store.Entry{Type: store.EventAssistant, Payload: store.AssistantMessage{Model: "schedule",
			ToolCalls: []llm.ToolCall{{ID: "schedule-" + j.ID, Name: "run_command", Arguments: args}}}})
	if err != nil {
		return id, false, err
	}
	end, err := e.runner.Run(ctx, session.Request{Session: id, MaxSteps: 1})
	if err != nil {
		return id, false, err
	}
	if end.Err != nil {
		return id, false, end.Err
	}
	return id, true, nil
}

// watch asks the cheap model whether the condition holds (its call logged in a session of
// purpose schedule) and, when it does, sends the job's prompt into its conversation.
func (e *scheduleExec) watch(ctx context.Context, j schedule.Job, due time.Time) (string, bool, error) {
	provider, err := e.provider()
	if err != nil {
		return "", false, err
	}
	last := ""
	if evs, err := e.st.Events(j.Session); err == nil {
		for _, m := range agent.Messages(evs) {
			if m.Role == llm.RoleAssistant && strings.TrimSpace(m.Content) != "" {
				last = m.Content
			}
		}
	}
	info, err := e.st.CreateSession("⏰ " + j.Name + " (check)")
	if err != nil {
		return "", false, err
	}
	if _, err := e.st.UpdateSession(info.ID, func(i *store.SessionInfo) { i.Purpose = store.PurposeSchedule }); err != nil {
		return "", false, err
	}
	q := fmt.Sprintf("Condition: %s\nNow: %s\nThe conversation's last reply:\n%s", j.Condition, due.Format(time.RFC1123), last)
	if _, err := e.st.Append(info.ID, store.EventUser, store.UserMessage{Text: q}); err != nil {
		return info.ID, false, err
	}
	jr, err := agent.OpenJournal(e.st, info.ID)
	if err != nil {
		return info.ID, false, err
	}
	var reply strings.Builder
	a := &agent.Agent{Log: e.st, Provider: provider}
	end := a.Run(ctx, agent.Turn{Session: info.ID, Journal: jr, Model: e.cheap(), Price: e.price,
		Sink: sinkFunc(func(text string) { reply.WriteString(text) }), System: assets.Prompt("schedule_watch")})
	if end.Reason != store.EndDone {
		if end.Err != nil {
			return info.ID, false, end.Err
		}
		return info.ID, false, fmt.Errorf("the check ended: %s", end.Reason)
	}
	if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(reply.String())), "YES") {
		return info.ID, false, nil
	}
	return j.Session, true, e.turn(ctx, j.Session, j.Prompt, session.Request{})
}

// sinkFunc collects a reply's text (a retried call would repeat it: the check reads only its
// first word).
type sinkFunc func(text string)

func (f sinkFunc) Delta(text, _ string) { f(text) }
func (f sinkFunc) Reset(string)         {}
