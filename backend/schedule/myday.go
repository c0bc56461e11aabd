package schedule

import "github.com/tofu-research/tofu/backend/config"

// My Day at a set time (docs/MYDAY.md): the setting myday_at ("HH:MM", config.json) is the
// truth; the scheduler keeps one job for it (id "myday", kind myday, CatchUp) that writes the
// due day's report. It runs through the scheduler like every scheduled job, so a time missed
// while Tofu was closed is reported at the next start, and, since a past day's report is
// still right late, written then.

// MyDayJobID is the id of the job of the setting myday_at.
const MyDayJobID = "myday"

// MyDayJob is the job of the setting at ("" : none).
func MyDayJob(at string) (Job, bool, error) {
	hh, mm, err := config.DailyTime(at)
	if err != nil || at == "" {
		return Job{}, false, err
	}
	return Job{ID: MyDayJobID, Name: "My Day", Kind: KindMyDay, Cron: DailyCron(hh, mm), CatchUp: true}, true, nil
}

// SyncMyDay makes the scheduler's My Day job follow the settings (at start, after each change).
func SyncMyDay(s *Scheduler, cfg config.Config) error {
	j, on, err := MyDayJob(cfg.MyDayAt)
	if err != nil {
		return err
	}
	if !on {
		return s.Clear(MyDayJobID)
	}
	_, err = s.Put(j)
	return err
}
