package schedule

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/schedule/scheduletest"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

func newClock(t time.Time) *scheduletest.Clock { return scheduletest.New(t) }

// recorder is the executor: it records what ran and when, and says whether a watch holds.
type recorder struct {
	ran  chan string
	hold func(Job) bool
}

func (r *recorder) Run(_ context.Context, j Job, due time.Time) (string, bool, error) {
	held := true
	if j.Kind == KindWatch && r.hold != nil {
		held = r.hold(j)
	}
	r.ran <- j.Name + "@" + due.Format("15:04")
	return "s-" + j.Name, held, nil
}

var t0 = time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)

func newStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func start(t *testing.T, s *Scheduler) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func runs(t *testing.T, s *Scheduler, name string) []Run {
	t.Helper()
	jobs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.Name == name {
			return j.Runs
		}
	}
	t.Fatalf("no job %s", name)
	return nil
}

// TestJobsRunWhenDue: a cron job and a single run fire at their times on the injected clock,
// each run recorded with its session; the single one is done after it.
func TestJobsRunWhenDue(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	clock := newClock(t0)
	rec := &recorder{ran: make(chan string, 10)}
	s := New(Options{Records: st, Exec: rec, Clock: clock, Loc: time.UTC})
	if _, err := s.Add(Job{Name: "hourly", Kind: KindPrompt, Prompt: "status?", Cron: "0 * * * *"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(Job{Name: "once", Kind: KindAgent, Prompt: "tidy", Workspace: "/w", At: t0.Add(30 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	stop := start(t, s)
	<-clock.Waiting
	clock.Advance(30 * time.Minute)
	if got := <-rec.ran; got != "once@08:30" {
		t.Fatalf("ran %s", got)
	}
	<-clock.Waiting
	clock.Advance(30 * time.Minute)
	if got := <-rec.ran; got != "hourly@09:00" {
		t.Fatalf("ran %s", got)
	}
	<-clock.Waiting
	stop()
	jobs, _ := s.List()
	if len(jobs) != 2 || jobs[0].Name != "hourly" || !jobs[0].Next.Equal(t0.Add(2*time.Hour)) || !jobs[1].Done {
		t.Fatalf("jobs: %+v", jobs)
	}
	if r := runs(t, s, "once"); len(r) != 1 || r[0].Session != "s-once" || r[0].Outcome != OutcomeOK {
		t.Fatalf("runs: %+v", r)
	}
}

// TestMissedRunsAreReported: jobs due while no scheduler ran are recorded as missed (with how
// many due times) at the next start, not run late, and move on to their next time.
func TestMissedRunsAreReported(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	clock := newClock(t0)
	rec := &recorder{ran: make(chan string, 10)}
	s := New(Options{Records: st, Exec: rec, Clock: clock, Loc: time.UTC})
	if _, err := s.Add(Job{Name: "hourly", Kind: KindPrompt, Prompt: "status?", Cron: "0 * * * *"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(Job{Name: "once", Kind: KindPrompt, Prompt: "x", At: t0.Add(90 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	// Tofu is closed from 8:00 to 11:20: 9:00, 10:00 and 11:00 pass, and the single 9:30.
	clock.Advance(3*time.Hour + 20*time.Minute)
	stop := start(t, s)
	<-clock.Waiting
	stop()
	select {
	case got := <-rec.ran:
		t.Fatalf("a missed run ran late: %s", got)
	default:
	}
	if r := runs(t, s, "hourly"); len(r) != 1 || r[0].Outcome != OutcomeMissed || r[0].Missed != 3 || r[0].Due.Hour() != 9 {
		t.Fatalf("hourly runs: %+v", r)
	}
	jobs, _ := s.List()
	if !jobs[0].Next.Equal(t0.Add(4 * time.Hour)) {
		t.Fatalf("next: %v", jobs[0].Next)
	}
	if r := runs(t, s, "once"); len(r) != 1 || r[0].Outcome != OutcomeMissed || !jobs[1].Done {
		t.Fatalf("once: %+v %+v", r, jobs[1])
	}
}

// TestWatchPollsUntilItHolds: a watch runs on its cron, recorded as waiting while its
// condition does not hold, and is done once it holds.
func TestWatchPollsUntilItHolds(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	clock := newClock(t0)
	polls := 0
	rec := &recorder{ran: make(chan string, 10), hold: func(Job) bool { polls++; return polls == 3 }}
	s := New(Options{Records: st, Exec: rec, Clock: clock, Loc: time.UTC})
	if _, err := s.Add(Job{Name: "w", Kind: KindWatch, Cron: "*/10 * * * *", Condition: "the run finished", Prompt: "summarize it", Session: "c1"}); err != nil {
		t.Fatal(err)
	}
	stop := start(t, s)
	for range 3 {
		<-clock.Waiting
		clock.Advance(10 * time.Minute)
		<-rec.ran
	}
	stop() // Run returns once the runs under way are recorded
	r := runs(t, s, "w")
	var outcomes []string
	for _, x := range r {
		outcomes = append(outcomes, x.Outcome)
	}
	if strings.Join(outcomes, ",") != "waiting,waiting,ok" {
		t.Fatalf("outcomes: %v", outcomes)
	}
	if jobs, _ := s.List(); !jobs[0].Done || !jobs[0].Next.IsZero() {
		t.Fatalf("watch not done: %+v", jobs[0])
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	cases := map[string]Job{
		"no time":        {Kind: KindPrompt, Prompt: "x"},
		"both times":     {Kind: KindPrompt, Prompt: "x", Cron: "@daily", At: t0},
		"bad cron":       {Kind: KindPrompt, Prompt: "x", Cron: "61 * * * *"},
		"agent no ws":    {Kind: KindAgent, Prompt: "x", Cron: "@daily"},
		"command no cmd": {Kind: KindCommand, Workspace: "/w", Cron: "@daily"},
		"watch once":     {Kind: KindWatch, Condition: "c", Prompt: "p", Session: "s", At: t0},
		"unknown kind":   {Kind: "mail", Cron: "@daily"},
	}
	for name, j := range cases {
		if err := j.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := (Job{Kind: KindCommand, Command: "make", Workspace: "/w", Cron: "30 9 * * 1-5"}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestScheduleToolsAreDeferredAndAsk: the tools cost the first request nothing, and a command
// job asks as the command it will run.
func TestScheduleToolsAreDeferredAndAsk(t *testing.T) {
	t.Parallel()
	s := New(Options{Records: newStore(t), Exec: &recorder{ran: make(chan string, 1)}, Clock: newClock(t0), Loc: time.UTC})
	reg := tools.NewRegistry()
	if err := AddTools(reg, s, "c1"); err != nil {
		t.Fatal(err)
	}
	if specs := reg.Specs(); len(specs) != 1 || specs[0].Name != "tool_search" || strings.Contains(specs[0].Description, "schedule") {
		t.Fatalf("offered: %+v", specs)
	}
	acc, _ := reg.Access(tools.Call{Name: "schedule_add", Arguments: json.RawMessage(`{"kind":"command","command":"make deploy","workspace":"/w","cron":"@daily"}`)})
	if len(acc) != 1 || acc[0].Kind != tools.AccessExec || acc[0].Command != "make deploy" || acc[0].Dir != "/w" {
		t.Fatalf("access: %+v", acc)
	}
	res, err := reg.Run(context.Background(), tools.Call{Name: "schedule_add", Arguments: json.RawMessage(`{"kind":"prompt","cron":"0 9 * * *","prompt":"news"}`)})
	if err != nil || res.IsError {
		t.Fatalf("add: %+v %v", res, err)
	}
	if jobs, _ := s.List(); len(jobs) != 1 || jobs[0].Session != "c1" {
		t.Fatalf("the prompt job does not go into the conversation it was asked in: %+v", jobs)
	}
}

// schedule_add {"kind":"agent","workspace":"/elsewhere"} declared nothing, so it ran unasked
// under --approve never, and the job's turn later worked in the other folder; a prompt into
// another conversation likewise. Each now declares what the job will reach.
func TestScheduleAddDeclaresOtherWorkspacesAndConversations(t *testing.T) {
	t.Parallel()
	s := New(Options{Records: newStore(t), Exec: &recorder{ran: make(chan string, 1)}, Clock: newClock(t0), Loc: time.UTC})
	reg := tools.NewRegistry()
	if err := AddTools(reg, s, "c1"); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]tools.Access{
		`{"kind":"agent","workspace":"/elsewhere","cron":"@daily","prompt":"x"}`:       {Kind: tools.AccessRead, Path: "/elsewhere"},
		`{"kind":"prompt","session":"c2","cron":"@daily","prompt":"x"}`:                {Kind: tools.AccessSession, Target: "c2"},
		`{"kind":"watch","session":"c2","cron":"@daily","prompt":"x","condition":"y"}`: {Kind: tools.AccessSession, Target: "c2"},
	} {
		acc, err := reg.Access(tools.Call{Name: "schedule_add", Arguments: json.RawMessage(args)})
		if err != nil || len(acc) != 1 || acc[0] != want {
			t.Errorf("%s: access %+v %v, want %+v", args, acc, err, want)
		}
	}
	for _, args := range []string{`{"kind":"prompt","cron":"@daily","prompt":"x"}`, `{"kind":"prompt","session":"c1","cron":"@daily","prompt":"x"}`} {
		if acc, _ := reg.Access(tools.Call{Name: "schedule_add", Arguments: json.RawMessage(args)}); len(acc) != 0 {
			t.Errorf("%s: into its own conversation, access %+v", args, acc)
		}
	}
	res, err := reg.Run(context.Background(), tools.Call{Name: "schedule_add", Arguments: json.RawMessage(`{"kind":"agent","workspace":"~/x","cron":"@daily","prompt":"x"}`)})
	if err != nil || !res.IsError {
		t.Errorf("a workspace that is not absolute was scheduled: %+v %v", res, err)
	}
}
