package myday

import (
	"context"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/schedule"
)

// Panel is the My Day view: a day's report, generated on demand or at the time set (the
// setting myday_at, whose job the scheduler keeps: backend/schedule/myday.go), and the past
// days' (docs/MYDAY.md). The window's MyDayService (app) is Panel bound to the user interface:
// every exported method is callable from the page, so the rest are functions.
type Panel struct {
	gen    *Generator
	config func() (config.Config, error)
	setAt  func(at string) error

	mu    sync.Mutex
	sched *schedule.Scheduler // set once the scheduler is made (SetScheduler)
}

// PanelOptions are what a Panel works with.
type PanelOptions struct {
	Generator *Generator
	// Config reads the settings; SetAt saves the setting myday_at.
	Config func() (config.Config, error)
	SetAt  func(at string) error
}

// NewPanel shows o.Generator's reports.
func NewPanel(o PanelOptions) *Panel {
	return &Panel{gen: o.Generator, config: o.Config, setAt: o.SetAt}
}

// SetScheduler gives p the scheduler that keeps the My Day job.
func SetScheduler(p *Panel, s *schedule.Scheduler) {
	p.mu.Lock()
	p.sched = s
	p.mu.Unlock()
}

// Timing is what the My Day panel shows of the setting: the time ("" off), the next time,
// and the latest run (missed, late or on time).
type Timing struct {
	At   string        `json:"at"`
	Next time.Time     `json:"next,omitzero"`
	Last *schedule.Run `json:"last,omitempty"`
}

// Generator is the report builder `tofu myday` uses beside the window.
func (s *Panel) Generator() *Generator { return s.gen }

// Generate builds (again) the report of date ("" for today) and stores it.
func (s *Panel) Generate(date string) (Report, error) {
	day, err := s.gen.Day(date)
	if err != nil {
		return Report{}, err
	}
	return s.gen.Generate(context.Background(), day)
}

// Report returns the stored report of date ("" for today); nil when none was generated.
func (s *Panel) Report(date string) (*Report, error) {
	day, err := s.gen.Day(date)
	if err != nil {
		return nil, err
	}
	r, ok, err := s.gen.Get(day.Date)
	if err != nil || !ok {
		return nil, err
	}
	return &r, nil
}

// Past lists the dates with a stored report, newest first.
func (s *Panel) Past() ([]string, error) { return s.gen.Past() }

// WriteDue writes the report of the day due falls on, for the scheduler: the session its
// prose call is logged in ("" when the prose was extractive).
func WriteDue(ctx context.Context, s *Panel, due time.Time) (string, error) {
	r, err := s.gen.Generate(ctx, DayOf(due, time.Local))
	if err != nil {
		return "", err
	}
	return r.Session, nil
}

// Schedule returns the My Day setting with its job's next time and latest run.
func (s *Panel) Schedule() (Timing, error) {
	cfg, err := s.config()
	if err != nil {
		return Timing{}, err
	}
	out := Timing{At: cfg.MyDayAt}
	s.mu.Lock()
	sched := s.sched
	s.mu.Unlock()
	if out.At == "" || sched == nil {
		return out, nil
	}
	j, ok, err := sched.Get(schedule.MyDayJobID)
	if err != nil || !ok {
		return out, err
	}
	out.Next = j.Next
	if n := len(j.Runs); n > 0 {
		last := j.Runs[n-1]
		out.Last = &last
	}
	return out, nil
}

// SetTime sets the time the report is written each day ("HH:MM", local; "" turns it off) and
// saves it in the settings; the scheduler follows.
func (s *Panel) SetTime(at string) (Timing, error) {
	if err := s.setAt(at); err != nil {
		return Timing{}, err
	}
	return s.Schedule()
}
