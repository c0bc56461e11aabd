package app

import (
	"context"
	"log"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/store"
)

// MyDayService is the My Day view (myday.Panel): a day's report, generated on demand or at
// the time set, and the past days' (docs/MYDAY.md).
type MyDayService struct{ *myday.Panel }

// MyDaySchedule is what the My Day panel shows of the setting myday_at.
type MyDaySchedule = myday.Timing

func newMyDayService(st *store.Store, lib *library.Library, call oneshot.Func, settings *SettingsService) *MyDayService {
	gen := myday.New(myday.Options{
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
	})
	return &MyDayService{myday.NewPanel(myday.PanelOptions{Generator: gen, Config: settings.config,
		SetAt: func(at string) error { return settings.update(func(c *config.Config) { c.MyDayAt = at }) }})}
}

// reportOf writes the report of the day due falls on, for the scheduler.
func (s *MyDayService) reportOf(ctx context.Context, due time.Time) (string, error) {
	return myday.WriteDue(ctx, s.Panel, due)
}

// followMyDaySetting syncs the scheduler's My Day job now and after every settings change.
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
