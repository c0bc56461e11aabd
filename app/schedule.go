package app

import (
	"context"
	"time"

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
	exec := &schedule.TurnExec{Store: st, Runner: runner, Call: call, Report: report, Cheap: func() string {
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
