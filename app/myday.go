package app

import (
	"context"

	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/store"
)

// MyDayService is the My Day view: a day's report, generated on demand or at the time set
// (myday_schedule.go), and the past days' (docs/MYDAY.md).
type MyDayService struct {
	gen      *myday.Generator
	settings *SettingsService
	sched    *schedule.Scheduler // set once the schedule service is made
}

func newMyDayService(st *store.Store, lib *library.Library, call oneshot.Func, settings *SettingsService) *MyDayService {
	return &MyDayService{settings: settings, gen: myday.New(myday.Options{
		Store: st, Call: call,
		Cheap: func() string {
			cfg, err := settings.config()
			if err != nil {
				return ""
			}
			return cfg.Models.Cheap
		},
		Paper: func(id string) string {
			info, err := lib.Info(id)
			if err != nil {
				return ""
			}
			return info.Title
		},
	})}
}

// Generator is the report builder `tofu myday` uses beside the window.
func (s *MyDayService) Generator() *myday.Generator { return s.gen }

// Generate builds (again) the report of date ("" for today) and stores it.
func (s *MyDayService) Generate(date string) (myday.Report, error) {
	day, err := s.gen.Day(date)
	if err != nil {
		return myday.Report{}, err
	}
	return s.gen.Generate(context.Background(), day)
}

// Report returns the stored report of date ("" for today); nil when none was generated.
func (s *MyDayService) Report(date string) (*myday.Report, error) {
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
func (s *MyDayService) Past() ([]string, error) { return s.gen.Past() }
