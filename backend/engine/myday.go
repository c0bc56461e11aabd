package engine

import (
	"context"
	"log"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// cheap is the settings' cheap model ("" when they cannot be read or name none).
func cheap(set *Settings) string {
	cfg, err := set.Config()
	if err != nil {
		return ""
	}
	return cfg.Models.Cheap
}

// newMyDay is the My Day panel: a day's report, generated on demand or at the time set
// (docs/MYDAY.md).
func newMyDay(st *store.Store, lib *library.Library, call oneshot.Func, set *Settings) *myday.Panel {
	gen := myday.New(myday.Options{
		Store: st, Call: call, Cheap: func() string { return cheap(set) },
		Paper: func(id string) string {
			info, err := lib.Info(id)
			if err != nil {
				return ""
			}
			return info.Title
		},
	})
	return myday.NewPanel(myday.PanelOptions{Generator: gen, Config: set.Config,
		SetAt: func(at string) error { return set.Update(func(c *config.Config) { c.MyDayAt = at }) }})
}

// newScheduler runs the scheduled jobs as turns (docs/SCHEDULE.md); My Day's job writes the
// day's report.
func newScheduler(st *store.Store, runner *session.Runner, call oneshot.Func, set *Settings, emit Emitter, day *myday.Panel) *schedule.Scheduler {
	exec := &schedule.TurnExec{Store: st, Runner: runner, Call: call,
		Report: func(ctx context.Context, due time.Time) (string, error) { return myday.WriteDue(ctx, day, due) },
		Cheap: func() string {
			if m := cheap(set); m != "" {
				return m
			}
			cfg, _ := set.Config()
			return cfg.Models.Main
		}}
	return schedule.New(schedule.Options{Records: st, Exec: exec,
		Changed: func() { emit.Emit(ScheduleTopic, "changed") }})
}

// followMyDaySetting syncs the scheduler's My Day job now and after every settings change.
func followMyDaySetting(s *schedule.Scheduler, set *Settings) {
	sync := func() {
		cfg, err := set.Config()
		if err == nil {
			err = schedule.SyncMyDay(s, cfg)
		}
		if err != nil {
			log.Printf("tofu: My Day's time: %v", err)
		}
	}
	sync()
	set.OnUpdate(sync)
}
