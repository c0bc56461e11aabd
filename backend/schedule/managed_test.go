package schedule

import (
	"strings"
	"testing"
	"time"
)

// TestCatchUpRunsTheLatestMissedTime: a CatchUp job (My Day's) due while Tofu was closed is
// reported missed with its count and also run once at start, late, for the latest due time it
// missed; a plain job closed over the same hours is only reported.
func TestCatchUpRunsTheLatestMissedTime(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	clock := newClock(t0)
	rec := &recorder{ran: make(chan string, 10)}
	s := New(Options{Records: st, Exec: rec, Clock: clock, Loc: time.UTC})
	if _, err := s.Put(Job{ID: "myday", Name: "My Day", Kind: KindMyDay, Cron: DailyCron(18, 0), CatchUp: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(Job{Name: "evening", Kind: KindPrompt, Prompt: "x", Cron: "0 18 * * *"}); err != nil {
		t.Fatal(err)
	}
	// Closed from Tuesday 8:00 to Thursday 9:00: Tuesday's and Wednesday's 18:00 pass.
	clock.Advance(49 * time.Hour)
	stop := start(t, s)
	if got := <-rec.ran; got != "My Day@18:00" {
		t.Fatalf("ran %s", got)
	}
	<-clock.Waiting
	stop()
	select {
	case got := <-rec.ran:
		t.Fatalf("a plain missed job ran late: %s", got)
	default:
	}
	r := runs(t, s, "My Day")
	if len(r) != 2 || r[0].Outcome != OutcomeMissed || r[0].Missed != 2 || r[0].Due.Day() != 10 {
		t.Fatalf("missed run: %+v", r)
	}
	if !r[1].Late || r[1].Outcome != OutcomeOK || !r[1].Due.Equal(time.Date(2026, 3, 11, 18, 0, 0, 0, time.UTC)) || !r[1].Started.Equal(clock.Now()) {
		t.Fatalf("catch-up run: %+v", r[1])
	}
	if r := runs(t, s, "evening"); len(r) != 1 || r[0].Outcome != OutcomeMissed || r[0].Late {
		t.Fatalf("evening: %+v", r)
	}
}

// TestPutKeepsTheDueTime: putting the same managed job again (every start, every Settings
// save) keeps its runs and its next due time, so a time missed while closed is not skipped;
// a new time moves it; Clear removes it; neither Add nor Remove touch a My Day job by hand.
func TestPutKeepsTheDueTime(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	clock := newClock(t0)
	s := New(Options{Records: st, Exec: &recorder{ran: make(chan string, 10)}, Clock: clock, Loc: time.UTC})
	j := Job{ID: "myday", Name: "My Day", Kind: KindMyDay, Cron: DailyCron(18, 30), CatchUp: true}
	first, err := s.Put(j)
	if err != nil || !first.Next.Equal(time.Date(2026, 3, 10, 18, 30, 0, 0, time.UTC)) {
		t.Fatalf("put: %+v %v", first, err)
	}
	clock.Advance(24 * time.Hour) // closed over the 18:30
	again, err := s.Put(j)
	if err != nil || !again.Next.Equal(first.Next) {
		t.Fatalf("the same setting moved the due time: %+v %v", again, err)
	}
	j.Cron = DailyCron(7, 0)
	moved, err := s.Put(j)
	if err != nil || !moved.Next.Equal(time.Date(2026, 3, 12, 7, 0, 0, 0, time.UTC)) {
		t.Fatalf("new time: %+v %v", moved, err)
	}
	if _, err := s.Add(Job{Kind: KindMyDay, Cron: "@daily"}); err == nil || !strings.Contains(err.Error(), "My Day") {
		t.Fatalf("add by hand: %v", err)
	}
	if err := s.Remove("myday"); err == nil || !strings.Contains(err.Error(), "My Day") {
		t.Fatalf("remove by hand: %v", err)
	}
	if err := s.Clear("myday"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("myday"); ok {
		t.Fatal("cleared job still there")
	}
	if err := s.Clear("myday"); err != nil {
		t.Fatalf("clearing twice: %v", err)
	}
}
