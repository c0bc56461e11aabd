package app

import (
	"context"
	"log"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/schedule"
)

// My Day at a set time (docs/MYDAY.md): the setting myday_at ("HH:MM", config.json) is the
// truth; the scheduler keeps one job for it (id "myday", kind myday, CatchUp) that writes the
// due day's report. It runs through the scheduler like every scheduled job, so a time missed
// while Tofu was closed is reported at the next start, and, since a past day's report is
// still right late, written then.

const myDayJobID = "myday"

// MyDaySchedule is what the My Day panel shows of the setting: the time ("" off), the next
// time, and the latest run (missed, late or on time).
type MyDaySchedule struct {
	At   string        `json:"at"`
	Next time.Time     `json:"next,omitzero"`
	Last *schedule.Run `json:"last,omitempty"`
}

// myDayJob is the job of the setting at ("" : none).
func myDayJob(at string) (schedule.Job, bool, error) {
	hh, mm, err := config.DailyTime(at)
	if err != nil || at == "" {
		return schedule.Job{}, false, err
	}
	return schedule.Job{ID: myDayJobID, Name: "My Day", Kind: schedule.KindMyDay, Cron: schedule.DailyCron(hh, mm), CatchUp: true}, true, nil
}

// syncMyDay makes the scheduler's My Day job follow the settings (at start, after each change).
func syncMyDay(s *schedule.Scheduler, cfg config.Config) error {
	j, on, err := myDayJob(cfg.MyDayAt)
	if err != nil {
		return err
	}
	if !on {
		return s.Clear(myDayJobID)
	}
	_, err = s.Put(j)
	return err
}

// followMyDaySetting syncs the job now and after every settings change.
func followMyDaySetting(s *schedule.Scheduler, settings *SettingsService) {
	sync := func() {
		cfg, err := settings.config()
		if err == nil {
			err = syncMyDay(s, cfg)
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
	j, ok, err := s.sched.Get(myDayJobID)
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
