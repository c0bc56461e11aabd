package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tofu-research/tofu/backend/engine"
	"github.com/tofu-research/tofu/backend/forward"
	"github.com/tofu-research/tofu/backend/schedule"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/wording"
)

// startScheduler runs e's scheduler until the returned stop is called (the window and
// `tofu serve`: jobs run while Tofu is open; runs missed while it was closed are recorded at
// the start).
func startScheduler(e *engine.Engine) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.Scheduler.Run(ctx); err != nil {
			fmt.Printf("tofu: the scheduler stopped: %v\n", err)
		}
	}()
	return func() { cancel(); <-done }
}

// scheduleCall runs req in the running Tofu, or on the store here (the jobs then run when
// Tofu next opens).
func scheduleCall(req forward.DeskRequest) (forward.DeskAnswer, error) {
	st, inst, err := attach()
	if err != nil {
		return forward.DeskAnswer{}, err
	}
	if inst != nil {
		return inst.Desk(req)
	}
	defer st.Close()
	return forward.AnswerSchedule(localScheduler(st), req)
}

// localScheduler keeps the jobs without running them.
func localScheduler(st *store.Store) *schedule.Scheduler {
	return schedule.New(schedule.Options{Records: st})
}

func newScheduleCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "schedule", Short: "Schedule prompts, agent tasks, commands and watches (they run while Tofu is open)"}
	var asJSON bool
	ls := &cobra.Command{
		Use: "list", Short: "The scheduled jobs, their next time and latest runs (missed ones too)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ans, err := scheduleCall(forward.DeskRequest{Op: forward.DeskScheduleList})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), ans.Jobs)
			}
			printJobs(cmd.OutOrStdout(), ans.Jobs)
			return nil
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print the jobs as JSON")
	var j schedule.Job
	var kind, at string
	add := &cobra.Command{
		Use: "add", Short: "Add a job: --cron or --at, and what it does", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			j.Kind = schedule.Kind(kind)
			if at != "" {
				t, err := parseAt(at)
				if err != nil {
					return err
				}
				j.At = t
			}
			if j.Workspace != "" {
				abs, err := filepath.Abs(j.Workspace)
				if err != nil {
					return err
				}
				j.Workspace = abs
			}
			ans, err := scheduleCall(forward.DeskRequest{Op: forward.DeskScheduleAdd, Job: &j})
			if err != nil {
				return err
			}
			added := ans.Jobs[0]
			fmt.Fprintf(cmd.OutOrStdout(), "Added %s (%s), next %s\n", added.ID, added.When(), added.Next.Local().Format("2006-01-02 15:04"))
			return nil
		},
	}
	f := add.Flags()
	f.StringVar(&j.Name, "name", "", "a name for the job")
	f.StringVar(&kind, "kind", string(schedule.KindPrompt), "prompt, agent, command or watch")
	f.StringVar(&j.Cron, "cron", "", `a cron expression, minute hour day month weekday ("30 9 * * 1-5", "@daily")`)
	f.StringVar(&at, "at", "", `a single run: "YYYY-MM-DD HH:MM" (local time) or RFC 3339`)
	f.StringVar(&j.Prompt, "prompt", "", "prompt and watch: the message; agent: the task")
	f.StringVar(&j.Session, "session", "", "prompt: the conversation (default: a new one per run); watch: the conversation to continue")
	f.StringVar(&j.Workspace, "workspace", "", "agent and command: the workspace")
	f.StringVar(&j.Command, "command", "", "command: the command line (asked through the approval service)")
	f.StringVar(&j.Condition, "condition", "", "watch: the condition the cheap model checks on each poll")
	rm := &cobra.Command{
		Use: "rm ID", Short: "Remove a job", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := scheduleCall(forward.DeskRequest{Op: forward.DeskScheduleRm, Session: args[0]})
			if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "Removed %s\n", args[0])
			}
			return err
		},
	}
	cmd.AddCommand(ls, add, rm)
	return cmd
}

func parseAt(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	t, err := time.ParseInLocation("2006-01-02 15:04", s, time.Local)
	if err != nil {
		return time.Time{}, fmt.Errorf(`--at %q: want "YYYY-MM-DD HH:MM" or RFC 3339`, s)
	}
	return t, nil
}

func printJobs(out io.Writer, jobs []schedule.Job) {
	if len(jobs) == 0 {
		fmt.Fprintln(out, "No scheduled jobs.")
		return
	}
	for _, j := range jobs {
		next := "done"
		if !j.Done {
			next = "next " + j.Next.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(out, "%s  %-8s %s  %s  %s\n", j.ID, j.Kind, termLine(wording.Clip(j.Name, 40)), j.When(), next)
		for _, r := range j.Runs {
			switch r.Outcome {
			case schedule.OutcomeMissed:
				fmt.Fprintf(out, "    MISSED %d run(s) from %s: Tofu was not open\n", r.Missed, r.Due.Local().Format("2006-01-02 15:04"))
			default:
				fmt.Fprintf(out, "    %s  %s  %s\n", r.Due.Local().Format("2006-01-02 15:04"), termLine(wording.Clip(r.Outcome, 80)), r.Session)
			}
		}
	}
}
