package schedule

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/tools"
)

// The schedule tools are deferred and unlisted: found by tool_search ("schedule", "remind",
// "every day"), never in the first request (session.TestFirstRequestBudget).

type addParams struct {
	Name      string `json:"name,omitempty"`
	Kind      string `json:"kind" description:"prompt, agent, command or watch"`
	Cron      string `json:"cron,omitempty" description:"5-field cron in local time, e.g. 30 9 * * 1-5"`
	At        string `json:"at,omitempty" description:"single run, RFC 3339"`
	Prompt    string `json:"prompt,omitempty" description:"the message (prompt, watch) or task (agent)"`
	Session   string `json:"session,omitempty" description:"conversation id (prompt: default new; watch: required)"`
	Workspace string `json:"workspace,omitempty" description:"agent, command: absolute path"`
	Command   string `json:"command,omitempty"`
	Condition string `json:"condition,omitempty" description:"watch: checked by the cheap model on each poll"`
}

type idParams struct {
	ID string `json:"id"`
}

type noParams struct{}

// AddTools adds schedule_list, schedule_add and schedule_remove to reg, deferred. session is
// the conversation the tools run in: a prompt or watch job with no conversation named goes
// into it.
func AddTools(reg *tools.Registry, s *Scheduler, session string) error {
	defs := []tools.Tool{
		tools.Define(tools.Def[noParams]{Name: "schedule_list", ReadOnly: true,
			Description: "List the user's scheduled jobs (id, kind, when, next run, latest runs including missed ones).",
			Run: func(context.Context, tools.Call, noParams) (tools.Result, error) {
				jobs, err := s.List()
				if err != nil {
					return tools.Result{}, err
				}
				if len(jobs) == 0 {
					return tools.Result{Text: "No scheduled jobs."}, nil
				}
				var b strings.Builder
				for _, j := range jobs {
					fmt.Fprintf(&b, "%s %s %q %s next=%s done=%v\n", j.ID, j.Kind, j.Name, j.When(), j.Next.Format(time.RFC3339), j.Done)
				}
				return tools.Result{Text: b.String()}, nil
			}}),
		tools.Define(tools.Def[addParams]{Name: "schedule_add",
			Description: "Schedule work while Tofu is open: kind prompt (send a message into a conversation), agent (a task in a workspace), command (runs in a workspace, the user approves it), or watch (poll a condition with the cheap model on a cron, then send the message into the conversation). Give cron or at. Missed runs are reported, not run late.",
			Example:     `{"kind":"prompt","cron":"0 9 * * 1-5","prompt":"Summarize new arXiv papers on retrieval"}`,
			// A job is judged when it is scheduled as what it will reach, since it runs later
			// outside this turn's approvals: a command job as the command it will run (and again
			// at each run); an agent job as a read of its workspace (its turn reads there
			// unasked: another folder asks); a prompt or a watch into another conversation as a
			// message sent there (asks).
			Access: func(_ tools.Call, p addParams) []tools.Access {
				switch Kind(p.Kind) {
				case KindCommand:
					return []tools.Access{{Kind: tools.AccessExec, Command: p.Command, Dir: p.Workspace}}
				case KindAgent:
					return []tools.Access{{Kind: tools.AccessRead, Path: p.Workspace}}
				case KindPrompt, KindWatch:
					if p.Session != "" && p.Session != session {
						return []tools.Access{{Kind: tools.AccessSession, Target: p.Session}}
					}
				}
				return nil
			},
			Run: func(_ context.Context, _ tools.Call, p addParams) (tools.Result, error) {
				if (Kind(p.Kind) == KindAgent || Kind(p.Kind) == KindCommand) && !filepath.IsAbs(p.Workspace) {
					// What was judged must be what runs: a relative path or ~ would be resolved
					// again, later, from wherever the job starts.
					return tools.Result{Text: "workspace: give an absolute path", IsError: true}, nil
				}
				j := Job{Name: p.Name, Kind: Kind(p.Kind), Cron: p.Cron, Prompt: p.Prompt, Session: p.Session,
					Workspace: p.Workspace, Command: p.Command, Condition: p.Condition}
				if p.At != "" {
					t, err := time.Parse(time.RFC3339, p.At)
					if err != nil {
						return tools.Result{Text: "at: want RFC 3339, e.g. 2026-03-10T09:00:00+01:00", IsError: true}, nil
					}
					j.At = t
				}
				if j.Session == "" && (j.Kind == KindWatch || j.Kind == KindPrompt) {
					j.Session = session
				}
				added, err := s.Add(j)
				if err != nil {
					return tools.Result{Text: err.Error(), IsError: true}, nil
				}
				return tools.Result{Text: fmt.Sprintf("Scheduled %s (%s), next run %s.", added.ID, added.When(), added.Next.Format(time.RFC3339))}, nil
			}}),
		tools.Define(tools.Def[idParams]{Name: "schedule_remove",
			Description: "Remove a scheduled job by id.",
			Run: func(_ context.Context, _ tools.Call, p idParams) (tools.Result, error) {
				if err := s.Remove(p.ID); err != nil {
					return tools.Result{Text: err.Error(), IsError: true}, nil
				}
				return tools.Result{Text: "Removed " + p.ID + "."}, nil
			}}),
	}
	for _, t := range defs {
		if err := reg.Add(t); err != nil {
			return err
		}
	}
	reg.DeferUnlisted("schedule_list", "schedule_add", "schedule_remove")
	return nil
}
