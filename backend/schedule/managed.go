package schedule

import "fmt"

// A managed job is kept by a setting rather than added by hand: My Day's report at a set
// time. The setting is the truth (config.json); Put and Clear make the stored job follow it,
// and its runs (missed ones included) stay with it in the store.

// Put stores the managed job j under its own id: a new one gets its next due time; an
// existing one keeps its runs, and its next due time unless its cron changed, so a due
// time that passed while Tofu was closed is still reported (and caught up) at the next
// start rather than skipped by re-applying the same setting.
func (s *Scheduler) Put(j Job) (Job, error) {
	if j.ID == "" {
		return Job{}, fmt.Errorf("a managed job needs an id")
	}
	if err := j.Validate(); err != nil {
		return Job{}, err
	}
	now := s.o.Clock.Now()
	s.mu.Lock()
	var cur Job
	found, err := s.o.Records.GetJSON(prefix+j.ID, &cur)
	if err != nil {
		s.mu.Unlock()
		return Job{}, fmt.Errorf("read job %s: %w", j.ID, err)
	}
	if found && cur.Cron == j.Cron && cur.At.Equal(j.At) && cur.Name == j.Name && cur.CatchUp == j.CatchUp && !cur.Done {
		s.mu.Unlock()
		return cur, nil
	}
	j.Created, j.Done, j.Runs = now, false, nil
	if found {
		j.Created, j.Runs = cur.Created, cur.Runs
	}
	j.Next = j.NextAfter(now, s.o.Loc)
	err = put(s.o.Records, j)
	s.mu.Unlock()
	if err != nil {
		return Job{}, err
	}
	s.poke()
	return j, nil
}

// Clear deletes the managed job id if there is one (its setting was turned off).
func (s *Scheduler) Clear(id string) error {
	s.mu.Lock()
	found, err := s.o.Records.GetJSON(prefix+id, &Job{})
	if err == nil && found {
		err = s.o.Records.DeleteJSON(prefix + id)
	}
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("remove job %s: %w", id, err)
	}
	if found {
		s.poke()
	}
	return nil
}

// Get returns the job id (false when there is none).
func (s *Scheduler) Get(id string) (Job, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var j Job
	ok, err := s.o.Records.GetJSON(prefix+id, &j)
	return j, ok, err
}

// DailyCron is the cron expression of every day at hh:mm.
func DailyCron(hh, mm int) string { return fmt.Sprintf("%d %d * * *", mm, hh) }
