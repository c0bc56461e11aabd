package app

import (
	"context"
	"log"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/schedule"
)

// My Day at a set time (docs/MYDAY.md, backend/schedule/myday.go): the setting myday_at is the
// truth, and the scheduler keeps one job for it.

// MyDaySchedule is what the My Day panel shows of the setting: the time ("" off), the next
// time, and the latest run (missed, late or on time).
type MyDaySchedule struct {
	At   string        `json:"at"`
	Next time.Time     `json:"next,omitzero"`
	Last *schedule.Run `json:"last,omitempty"`
}

// followMyDaySetting syncs the job now and after every settings change.
func followMyDaySetting(s *schedule.Scheduler, settings *SettingsService) {
	sync := func() {
		cfg, err := settings.config()
		if err == nil {
			err = schedule.SyncMyDay(s, cfg)
		}
		if err != nil {
			log.Printf("tofu: My Day's time: %v", err)
		}
	}
	sync()
	settings.onUpdate(sync)
}

// reportOf writes the report of the day due falls on, for the scheduler: the session its
// prose call is logged in ("" when the prose was extractive).
func (s *MyDayService) reportOf(ctx context.Context, due time.Time) (string, error) {
	r, err := s.gen.Generate(ctx, myday.DayOf(due, time.Local))
	if err != nil {
		return "", err
	}
	return r.Session, nil
}

// Schedule returns the My Day setting with its job's next time and latest run.
func (s *MyDayService) Schedule() (MyDaySchedule, error) {
	cfg, err := s.settings.config()
	if err != nil {
		return MyDaySchedule{}, err
	}
	out := MyDaySchedule{At: cfg.MyDayAt}
	if out.At == "" || s.sched == nil {
		return out, nil
	}
	j, ok, err := s.sched.Get(schedule.MyDayJobID)
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
func (s *MyDayService) SetTime(at string) (MyDaySchedule, error) {
	if err := s.settings.update(func(c *config.Config) { c.MyDayAt = at }); err != nil {
		return MyDaySchedule{}, err
	}
	return s.Schedule()
}
