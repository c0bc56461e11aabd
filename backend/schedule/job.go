// Package schedule keeps the user's scheduled jobs and runs them while Tofu is open: a prompt
// into a conversation, an agent task in a workspace, a command (asked through the approval
// service), or a watch that polls a condition with the cheap model and continues a
// conversation once it holds. Every run is a session; runs missed while Tofu was closed are
// reported, not run late and not skipped silently.
package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Kind is what a job does when it runs.
type Kind string

const (
	KindPrompt  Kind = "prompt"  // send Prompt into Session (a new conversation when empty)
	KindAgent   Kind = "agent"   // an agent turn on Prompt in Workspace, in a new session
	KindCommand Kind = "command" // run Command in Workspace, asked through the approval service
	KindWatch   Kind = "watch"   // poll Condition with the cheap model; when it holds, send Prompt into Session
	// KindMyDay writes the due day's My Day report. Its one job is kept by the My Day setting
	// (Put, Clear), never added or removed by hand.
	KindMyDay Kind = "myday"
)

// Job is one scheduled job, stored as "schedule/<id>".
type Job struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Cron is a standard five-field expression (minute hour day month weekday, or @daily…),
	// in the user's time zone; At is a single run instead. One of them is set.
	Cron      string    `json:"cron,omitempty"`
	At        time.Time `json:"at,omitempty"`
	Prompt    string    `json:"prompt,omitempty"`
	Session   string    `json:"session,omitempty"`
	Workspace string    `json:"workspace,omitempty"`
	Command   string    `json:"command,omitempty"`
	Condition string    `json:"condition,omitempty"`
	Created   time.Time `json:"created"`
	// Next is when the job runs next (zero once it is done).
	Next time.Time `json:"next,omitempty"`
	Done bool      `json:"done,omitempty"` // a single run ran, or a watch's condition held
	// CatchUp runs the job once at start for its latest due time missed while Tofu was
	// closed, besides reporting the miss: for work that is still right late (a past day's
	// report), unlike a prompt meant for 9:00.
	CatchUp bool  `json:"catch_up,omitempty"`
	Runs    []Run `json:"runs,omitempty"` // the latest runs, newest last (at most keepRuns)
}

// Run is one time a job was due: run (its session), or missed while Tofu was closed.
type Run struct {
	Due     time.Time `json:"due"`
	Started time.Time `json:"started,omitempty"`
	Session string    `json:"session,omitempty"`
	Outcome string    `json:"outcome"` // OutcomeOK, OutcomeMissed, OutcomeWaiting or the error
	// Missed counts the runs this one stands for: the app was closed over several due times.
	Missed int `json:"missed,omitempty"`
	// Late is a catch-up run: started at the next start for a due time missed while Tofu
	// was closed (Job.CatchUp).
	Late bool `json:"late,omitempty"`
}

// Outcomes of a run.
const (
	OutcomeOK      = "ok"
	OutcomeMissed  = "missed"  // Tofu was not open at the time; reported at the next start
	OutcomeWaiting = "waiting" // a watch polled and its condition does not hold yet
)

const keepRuns = 20

var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Validate checks a job before it is stored.
func (j Job) Validate() error {
	if (j.Cron == "") == j.At.IsZero() {
		return errors.New("a job needs a cron expression or a single time (not both)")
	}
	if j.Cron != "" {
		if _, err := parser.Parse(j.Cron); err != nil {
			return fmt.Errorf("cron %q: %w", j.Cron, err)
		}
	}
	switch j.Kind {
	case KindPrompt:
		if strings.TrimSpace(j.Prompt) == "" {
			return errors.New("a prompt job needs the prompt")
		}
	case KindAgent:
		if strings.TrimSpace(j.Prompt) == "" || j.Workspace == "" {
			return errors.New("an agent job needs the task and a workspace")
		}
	case KindCommand:
		if strings.TrimSpace(j.Command) == "" || j.Workspace == "" {
			return errors.New("a command job needs the command and a workspace")
		}
	case KindWatch:
		if strings.TrimSpace(j.Condition) == "" || strings.TrimSpace(j.Prompt) == "" || j.Session == "" {
			return errors.New("a watch needs the condition, the message to send when it holds, and the conversation")
		}
		if j.Cron == "" {
			return errors.New("a watch polls: give it a cron expression (e.g. */10 * * * *)")
		}
	case KindMyDay:
		if j.Cron == "" {
			return errors.New("My Day's report is daily: it needs a cron expression")
		}
	default:
		return fmt.Errorf("unknown job kind %q (prompt, agent, command or watch)", j.Kind)
	}
	return nil
}

// NextAfter is the job's first due time after t (zero when it has none: a single run past).
func (j Job) NextAfter(t time.Time, loc *time.Location) time.Time {
	if j.Cron == "" {
		if j.At.After(t) {
			return j.At
		}
		return time.Time{}
	}
	s, err := parser.Parse(j.Cron)
	if err != nil {
		return time.Time{}
	}
	return s.Next(t.In(loc))
}

// When says when the job runs, for a list.
func (j Job) When() string {
	if j.Cron != "" {
		return "cron " + j.Cron
	}
	return "once at " + j.At.Format("2006-01-02 15:04")
}

func (j *Job) record(r Run) {
	j.Runs = append(j.Runs, r)
	if n := len(j.Runs); n > keepRuns {
		j.Runs = j.Runs[n-keepRuns:]
	}
}
