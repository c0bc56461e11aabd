package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/oneshot"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TurnExec runs a due job through the turn runner: every run is a session. It is the
// Executor of the window's and `tofu serve`'s scheduler.
type TurnExec struct {
	Store  *store.Store
	Runner *session.Runner
	Call   oneshot.Func // the watch's check
	// Cheap is the model of the watch's check ("" : the provider's default).
	Cheap func() string
	// Report writes the My Day report of the day a time falls on (the session of its prose);
	// nil where there is no My Day.
	Report func(ctx context.Context, due time.Time) (string, error)
}

func (e *TurnExec) Run(ctx context.Context, j Job, due time.Time) (string, bool, error) {
	switch j.Kind {
	case KindPrompt:
		return e.send(ctx, j, j.Session, "", session.Message{Text: j.Prompt}, session.Request{})
	case KindAgent:
		return e.send(ctx, j, "", j.Workspace, session.Message{Text: j.Prompt}, session.Request{})
	case KindCommand:
		return e.command(ctx, j)
	case KindWatch:
		return e.watch(ctx, j, due)
	case KindMyDay:
		if e.Report == nil {
			return "", false, fmt.Errorf("My Day is not available here")
		}
		id, err := e.Report(ctx, due)
		return id, err == nil, err
	}
	return "", false, fmt.Errorf("unknown job kind %q", j.Kind)
}

// send sends m into the conversation id (or a new one named after the job, in workspace) and
// runs the turn to its end: the run held once its conversation has the message, and fails
// with the turn (a command's single step may end at its step bound).
func (e *TurnExec) send(ctx context.Context, j Job, id, workspace string, m session.Message, req session.Request) (string, bool, error) {
	m.Session, m.Title = id, "⏰ "+j.Name
	if workspace != "" {
		m.Setup = func(i *store.SessionInfo) { i.Workspace = workspace }
	}
	sent, err := e.Runner.Send(ctx, m, req)
	if err != nil {
		return sent.Session, sent.Session != "", err
	}
	end := sent.Turn.Wait()
	switch {
	case end.Err != nil:
		return sent.Session, true, end.Err
	case end.Reason != store.EndDone && !(req.MaxSteps > 0 && end.Reason == store.EndMaxSteps):
		return sent.Session, true, fmt.Errorf("the turn ended: %s", end.Reason)
	}
	return sent.Session, true, nil
}

// command runs the job's command in its workspace as a run_command call the scheduler
// makes (the assistant event says model "schedule"): the call goes through the approval
// service like any agent's, so the window's card (or a rule) decides, and the model then
// reads the output in one reply.
func (e *TurnExec) command(ctx context.Context, j Job) (string, bool, error) {
	args, _ := json.Marshal(map[string]string{"command": j.Command})
	return e.send(ctx, j, "", j.Workspace, session.Message{
		Text: "Scheduled command (" + j.Name + "): " + j.Command + "\nReport what it printed.",
		Then: []store.Entry{{Type: store.EventAssistant, Payload: store.AssistantMessage{Model: "schedule",
			ToolCalls: []llm.ToolCall{{ID: "schedule-" + j.ID, Name: "run_command", Arguments: args}}}}},
	}, session.Request{MaxSteps: 1})
}

// watch asks the cheap model whether the condition holds (its call logged in a session of
// purpose schedule) and, when it does, sends the job's prompt into its conversation.
func (e *TurnExec) watch(ctx context.Context, j Job, due time.Time) (string, bool, error) {
	last := ""
	if evs, err := e.Store.Events(j.Session); err == nil {
		for _, m := range agent.Messages(evs) {
			if m.Role == llm.RoleAssistant && strings.TrimSpace(m.Content) != "" {
				last = m.Content
			}
		}
	}
	q := fmt.Sprintf("Condition: %s\nNow: %s\nThe conversation's last reply:\n%s", j.Condition, due.Format(time.RFC1123), last)
	reply, err := e.Call(ctx, oneshot.Call{Title: "⏰ " + j.Name + " (check)", Purpose: store.PurposeSchedule,
		Model: e.cheap(), System: assets.Prompt("schedule_watch"), Text: q})
	if err != nil {
		return reply.Session, false, err
	}
	if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(reply.Text)), "YES") {
		return reply.Session, false, nil
	}
	return e.send(ctx, j, j.Session, "", session.Message{Text: j.Prompt}, session.Request{})
}

func (e *TurnExec) cheap() string {
	if e.Cheap == nil {
		return ""
	}
	return e.Cheap()
}
