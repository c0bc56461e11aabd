package schedule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Clock is the scheduler's time: the wall clock in Tofu, a hand-moved one in tests.
type Clock interface {
	Now() time.Time
	// After delivers once d has passed.
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Executor runs a due job and returns the session of the run. held is a watch's answer (its
// condition holds, the message went); other kinds return true.
type Executor interface {
	Run(ctx context.Context, j Job, due time.Time) (session string, held bool, err error)
}

// Options wire a Scheduler.
type Options struct {
	Records Records
	Exec    Executor
	Clock   Clock          // nil: the wall clock
	Loc     *time.Location // the zone cron expressions are read in (nil: local)
	// Changed is called after a job changed (added, removed, ran, missed), for the window.
	Changed func()
}

// Scheduler keeps the jobs and runs them as they fall due.
type Scheduler struct {
	o       Options
	mu      sync.Mutex
	running map[string]bool
	wake    chan struct{}
	wg      sync.WaitGroup
}

// New returns a scheduler; Run starts it.
func New(o Options) *Scheduler {
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	if o.Changed == nil {
		o.Changed = func() {}
	}
	return &Scheduler{o: o, running: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// List returns the jobs, the next due first (done ones last).
func (s *Scheduler) List() ([]Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	jobs, err := list(s.o.Records)
	sort.SliceStable(jobs, func(i, k int) bool {
		a, b := jobs[i], jobs[k]
		if a.Done != b.Done {
			return !a.Done
		}
		return a.Next.Before(b.Next)
	})
	return jobs, err
}

// Add validates and stores a new job and returns it with its id and next due time.
func (s *Scheduler) Add(j Job) (Job, error) {
	if j.Kind == KindMyDay {
		return Job{}, errMyDay
	}
	if err := j.Validate(); err != nil {
		return Job{}, err
	}
	now := s.o.Clock.Now()
	var b [6]byte
	_, _ = rand.Read(b[:])
	j.ID, j.Created, j.Done, j.Runs = hex.EncodeToString(b[:]), now, false, nil
	if j.Name == "" {
		j.Name = string(j.Kind)
	}
	j.Next = j.NextAfter(now, s.o.Loc)
	if j.Next.IsZero() {
		return Job{}, fmt.Errorf("%s is in the past", j.At.Format(time.RFC3339))
	}
	s.mu.Lock()
	err := put(s.o.Records, j)
	s.mu.Unlock()
	if err != nil {
		return Job{}, err
	}
	s.poke()
	return j, nil
}

// errMyDay refuses to add or remove My Day's job by hand: the setting keeps it.
var errMyDay = errors.New("My Day's report is scheduled by its setting: change or turn it off in My Day or Settings")

// Remove deletes a job (a run under way finishes).
func (s *Scheduler) Remove(id string) error {
	s.mu.Lock()
	var j Job
	found, err := s.o.Records.GetJSON(prefix+id, &j)
	if err == nil && found {
		if j.Kind == KindMyDay {
			s.mu.Unlock()
			return errMyDay
		}
		err = s.o.Records.DeleteJSON(prefix + id)
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("no scheduled job %q", id)
	}
	s.poke()
	return nil
}

func (s *Scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.o.Changed()
}

// Run reports the runs missed while Tofu was closed (and starts the catch-up runs), then runs
// jobs as they fall due until ctx ends, and waits for the runs under way.
func (s *Scheduler) Run(ctx context.Context) error {
	defer s.wg.Wait()
	if err := s.catchUp(ctx); err != nil {
		return err
	}
	for {
		if err := s.tick(ctx); err != nil {
			return err
		}
		var wait <-chan time.Time
		if next, ok := s.nextDue(); ok {
			wait = s.o.Clock.After(max(next.Sub(s.o.Clock.Now()), 0))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.wake:
		case <-wait:
		}
	}
}

// catchUp records, for every job whose due time passed while no scheduler ran, one missed run
// counting the due times it stands for, and moves the job to its next due time. A missed
// run is not run late: a prompt meant for 9:00 may be wrong at 15:00. The window and
// `tofu schedule list` show it. A CatchUp job (My Day's) also runs once now, for the latest
// due time it missed.
func (s *Scheduler) catchUp(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	jobs, err := list(s.o.Records)
	if err != nil {
		return err
	}
	now := s.o.Clock.Now()
	changed := false
	for _, j := range jobs {
		if j.Done || j.Next.IsZero() || j.Next.After(now) {
			continue
		}
		n, last := 0, j.Next
		for t := j.Next; !t.IsZero() && !t.After(now) && n < 10000; t = j.NextAfter(t, s.o.Loc) {
			n, last = n+1, t
		}
		j.record(Run{Due: j.Next, Outcome: OutcomeMissed, Missed: n})
		j.Next = j.NextAfter(now, s.o.Loc)
		j.Done = j.Next.IsZero()
		if err := put(s.o.Records, j); err != nil {
			return err
		}
		changed = true
		if j.CatchUp && !j.Done {
			s.running[j.ID] = true
			s.wg.Add(1)
			go s.run(ctx, j, last, true)
		}
	}
	if changed {
		s.o.Changed()
	}
	return nil
}

func (s *Scheduler) nextDue() (time.Time, bool) {
	jobs, err := s.List()
	if err != nil {
		return time.Time{}, false
	}
	for _, j := range jobs {
		if !j.Done && !j.Next.IsZero() && !s.isRunning(j.ID) {
			return j.Next, true
		}
	}
	return time.Time{}, false
}

func (s *Scheduler) isRunning(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[id]
}

// tick starts every job that is due, each in its own goroutine; its next due time is set
// before it runs, so a slow run is never started twice.
func (s *Scheduler) tick(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	jobs, err := list(s.o.Records)
	if err != nil {
		return err
	}
	now := s.o.Clock.Now()
	for _, j := range jobs {
		if j.Done || j.Next.IsZero() || j.Next.After(now) || s.running[j.ID] {
			continue
		}
		due := j.Next
		j.Next = j.NextAfter(now, s.o.Loc)
		if err := put(s.o.Records, j); err != nil {
			return err
		}
		s.running[j.ID] = true
		s.wg.Add(1)
		go s.run(ctx, j, due, false)
	}
	return nil
}

// run runs one job and records the run (late: a catch-up run for a missed due time).
func (s *Scheduler) run(ctx context.Context, j Job, due time.Time, late bool) {
	defer s.wg.Done()
	started := s.o.Clock.Now()
	session, held, err := s.o.Exec.Run(ctx, j, due)
	r := Run{Due: due, Started: started, Session: session, Outcome: OutcomeOK, Late: late}
	switch {
	case err != nil:
		r.Outcome = err.Error()
	case !held:
		r.Outcome = OutcomeWaiting
	}
	s.mu.Lock()
	defer func() {
		delete(s.running, j.ID)
		s.mu.Unlock()
		s.poke()
	}()
	// The job may have been removed meanwhile: then the run is not recorded.
	var cur Job
	if ok, err := s.o.Records.GetJSON(prefix+j.ID, &cur); err != nil || !ok {
		return
	}
	cur.record(r)
	if cur.Next.IsZero() || (j.Kind == KindWatch && held && err == nil) {
		cur.Done, cur.Next = true, time.Time{}
	}
	// Nothing to report it to from here. The run cannot start twice: tick stored the job's
	// next due time (none for a one-shot job) before running it. A failed put loses this run's
	// line and, for a watch that held, the done mark (it checks again when next due); a store
	// that cannot write fails the next tick too, which ends Run with the error.
	_ = put(s.o.Records, cur)
}
