package app

import (
	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/schedule"
)

// ScheduleService is the schedule view: the jobs, added and removed, and their runs
// (docs/SCHEDULE.md). The scheduler runs while the window or `tofu serve` is open.
type ScheduleService struct {
	s *schedule.Scheduler
}

// ScheduleTopic is the event topic telling the window the jobs changed.
const ScheduleTopic = engine.ScheduleTopic

// Scheduler is the app's scheduler (the schedule tools and `tofu schedule` use it).
func (s *ScheduleService) Scheduler() *schedule.Scheduler { return s.s }

// List returns the jobs, the next due first, with their latest runs.
func (s *ScheduleService) List() ([]schedule.Job, error) { return s.s.List() }

// Add stores a new job.
func (s *ScheduleService) Add(j schedule.Job) (schedule.Job, error) { return s.s.Add(j) }

// Remove deletes a job.
func (s *ScheduleService) Remove(id string) error { return s.s.Remove(id) }
