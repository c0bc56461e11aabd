package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/myday"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/schedule/scheduletest"
)

// TestMyDayAtASetTime: the My Day time set from the panel is saved in the settings (a bad
// time refused with what to type) and becomes the scheduler's My Day job. On an injected
// clock the report of the day is written at that time; with Tofu closed over the next two
// times, the next start reports them missed and writes the latest missed day's report, late.
// Turning the setting off removes the job.
func TestMyDayAtASetTime(t *testing.T) {
	f := newFixture(t)
	if _, err := f.app.MyDay.SetTime("25:70"); err == nil || !strings.Contains(err.Error(), "HH:MM") {
		t.Fatalf("bad time: %v", err)
	}
	got, err := f.app.MyDay.SetTime("18:00")
	if err != nil || got.At != "18:00" || got.Next.IsZero() {
		t.Fatalf("set: %+v %v", got, err)
	}
	if cfg, _ := f.app.Settings.config(); cfg.MyDayAt != "18:00" {
		t.Fatalf("not in the settings: %q", cfg.MyDayAt)
	}
	j, ok, err := f.app.Schedule.s.Get(schedule.MyDayJobID)
	if err != nil || !ok || j.Kind != schedule.KindMyDay || j.Cron != "0 18 * * *" || !j.CatchUp {
		t.Fatalf("job: %+v %v %v", j, ok, err)
	}
	if err := f.app.Schedule.Remove(schedule.MyDayJobID); err == nil {
		t.Fatal("the Schedule panel removed the setting's job")
	}

	// The same store under a scheduler on a hand-moved clock, as the window would run it.
	t0 := time.Date(2026, 3, 10, 8, 0, 0, 0, time.Local)
	clock := scheduletest.New(t0)
	exec := &schedule.TurnExec{Store: f.store, Runner: f.app.Runner, Report: f.app.MyDay.reportOf}
	s := schedule.New(schedule.Options{Records: f.store, Exec: exec, Clock: clock})
	f.store.DeleteJSON("schedule/" + schedule.MyDayJobID) // the wall-clock job above; this one starts at t0
	cfg, _ := f.app.Settings.config()
	if err := schedule.SyncMyDay(s, cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	<-clock.Waiting
	clock.Advance(10 * time.Hour) // 18:00
	<-clock.Waiting               // the loop sleeps again once the run is recorded
	cancel()
	if err := <-done; err != nil { // Run returns once the run is recorded
		t.Fatal(err)
	}
	if _, ok, _ := f.app.MyDay.Generator().Get("2026-03-10"); !ok {
		t.Fatal("the report of 2026-03-10 was not written at 18:00")
	}

	// Closed until Thursday 9:00: Wednesday's 18:00 passes; then the report of Wednesday is
	// written at start and the miss reported.
	clock.Advance(39 * time.Hour)
	s = schedule.New(schedule.Options{Records: f.store, Exec: exec, Clock: clock})
	if err := schedule.SyncMyDay(s, cfg); err != nil { // every start syncs: the missed time stays due
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	go func() { done <- s.Run(ctx) }()
	<-clock.Waiting
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, ok, _ := f.app.MyDay.Generator().Get("2026-03-11")
	if !ok || r.Date != "2026-03-11" {
		t.Fatalf("the missed day's report: %+v %v", r, ok)
	}
	j, _, _ = s.Get(schedule.MyDayJobID)
	if n := len(j.Runs); n != 3 || j.Runs[0].Outcome != schedule.OutcomeOK || j.Runs[1].Outcome != schedule.OutcomeMissed ||
		j.Runs[1].Missed != 1 || !j.Runs[2].Late || j.Runs[2].Outcome != schedule.OutcomeOK || myday.DayOf(j.Runs[2].Due, time.Local).Date != "2026-03-11" {
		t.Fatalf("runs: %+v", j.Runs)
	}
	if !j.Next.Equal(time.Date(2026, 3, 12, 18, 0, 0, 0, time.Local)) {
		t.Fatalf("next: %v", j.Next)
	}

	if _, err := f.app.MyDay.SetTime(""); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := f.app.Schedule.s.Get(schedule.MyDayJobID); ok {
		t.Fatal("turned off, the job stayed")
	}
}
