package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// runCalls runs one step's tool calls and records their results in call order. Consecutive
// read-only calls run in parallel and their results are written together (one sync); any other
// call runs alone, in order, and its result is written before the next starts. It returns
// false when the turn was interrupted (calls not started by then stay without a result, for
// Continue) or a result could not be written (t.j.err says so).
func (a *Agent) runCalls(ctx context.Context, t *Turn, calls []llm.ToolCall) bool {
	unnamed := map[string]bool{}
	for i := 0; i < len(calls); {
		j := i + 1
		if t.Tools.ReadOnly(calls[i].Name) {
			for j < len(calls) && t.Tools.ReadOnly(calls[j].Name) {
				j++
			}
		}
		group := calls[i:j]
		results := make([]store.ToolResult, len(group))
		var wg sync.WaitGroup
		for k, c := range group {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[k] = a.runCall(ctx, t, c)
			}()
		}
		wg.Wait()
		stopped := false
		var entries []store.Entry
		for k, r := range results {
			if r.CallID == "" { // never started: the turn was stopped first
				stopped = true
				continue
			}
			for _, c := range r.Checkpoint {
				if c.By == "git" { // a command's effect, which no result names
					unnamed[c.Path] = true
				}
			}
			if k == len(results)-1 && j == len(calls) {
				r.Text += reminder(unnamed) + planReminder(t.j.snapshot(), calls)
			}
			entries = append(entries, store.Entry{Type: store.EventToolResult, Payload: r})
			stopped = stopped || r.Interrupted
		}
		if _, err := t.j.record(entries...); err != nil || stopped || ctx.Err() != nil {
			return false
		}
		i = j
	}
	return true
}

// runCall checks the permission policy (asking the user when it says so) and runs one call.
// A zero result (no CallID) means the turn was stopped before the call started.
func (a *Agent) runCall(ctx context.Context, t *Turn, tc llm.ToolCall) store.ToolResult {
	if ctx.Err() != nil {
		return store.ToolResult{}
	}
	if r, ok := t.unfinished[tc.ID]; ok {
		return r // it was running when Tofu stopped: never run twice
	}
	call := tools.CallOf(tc, t.Workspace)
	res := store.ToolResult{CallID: tc.ID, Name: tc.Name}
	access, argErr := t.Tools.Access(call)
	if argErr != nil {
		r := argErr.Result()
		res.Text, res.IsError, res.Meta = r.Text, true, r.Meta
		return res
	}
	if ok, why := a.permit(ctx, t, &call, access); !ok {
		if ctx.Err() != nil || t.j.err() != nil {
			return store.ToolResult{} // stopped, or the log failed: the turn ends
		}
		res.Text, res.IsError = why, true
		return res
	}
	if !t.Tools.ReadOnly(tc.Name) {
		// Durable before the call can change anything: after a crash, a call with a start
		// and no result is answered as "may have run partly", not run again.
		if t.j.add(store.EventToolStart, store.ToolStart{CallID: tc.ID, Name: tc.Name}) != nil {
			return store.ToolResult{} // the log failed: the call does not run, the turn ends
		}
	}
	call.Permit = func(ctx context.Context, access []tools.Access) (bool, string) {
		asked := call // a question from inside the running call: its crossing is set
		ok, why := a.permit(ctx, t, &asked, access)
		if !ok && why == "" {
			why = "the turn was stopped before the user answered"
		}
		return ok, why
	}
	call.Launched = func(g procgroup.Group) error {
		g.CallID = tc.ID
		return t.j.add(store.EventProcess, g)
	}
	progress := &progressLog{j: t.j, callID: tc.ID}
	call.Progress = progress.report
	var changed func() []store.FileChange
	if t.Checkpoints != nil && !t.Tools.ReadOnly(tc.Name) {
		changed = t.Checkpoints.Before(ctx, call, access)
	}
	start := time.Now()
	r, err := t.Tools.Run(ctx, call)
	progress.stop()
	res.Duration = time.Since(start).Milliseconds()
	res.Text, res.IsError, res.Images, res.Meta, res.Files = r.Text, r.IsError, r.Images, r.Meta, r.Files
	if changed != nil {
		res.Checkpoint = changed()
	}
	if ctx.Err() != nil {
		if resumable(t.Tools, tc.Name) {
			return store.ToolResult{} // left open: Continue runs it again and it resumes
		}
		res.Interrupted = true
		res.Text = strings.TrimSpace(res.Text + "\n[interrupted by the user]")
		return res
	}
	if err != nil {
		res.IsError = true
		res.Text = fmt.Sprintf("The tool failed: %v", err)
	}
	if t.Context != nil {
		// L0: an output over its budget is stored whole; the model reads a preview and a
		// reference it can reopen with read_result. A tool that showed a cut of its output
		// (run_command past its cap) gives the whole in Full: that is what is stored, or
		// read_result would reopen only the cut.
		text := res.Text
		if r.Full != "" && err == nil {
			text = r.Full
		}
		kept, err := t.Context.Enter(tc.Name, text)
		if err == nil && text != res.Text && kept == text {
			kept, err = t.Context.Enter(tc.Name, res.Text) // the whole is within budget: show the cut still
		}
		if err == nil {
			res.Text = kept
		}
	}
	return res
}

// permit applies the policy; an "ask" is recorded, put to the approver, and its answer
// recorded. It returns whether the call may run and, if not, what the model reads; a call
// allowed carries the verdict's crossing of the sandbox. A call whose approval could not be
// recorded does not run (the turn then ends on t.j.err).
func (a *Agent) permit(ctx context.Context, t *Turn, call *tools.Call, access []tools.Access) (bool, string) {
	if t.Policy == nil {
		return true, ""
	}
	v := t.Policy.Check(*call, access)
	ap := store.Approval{CallID: call.ID, Name: call.Name, Subject: v.Subject, Reason: v.Reason}
	switch v.Action {
	case Allow:
		call.Crossing = v.Crossing
		return true, ""
	case Deny:
		ap.Decision, ap.By = store.DecisionDeny, store.ByPolicy
		t.j.later(store.EventApproval, ap) // written with the call's result
		return false, "Not allowed: " + v.Reason + ". Do not retry this call; find another way or ask the user."
	}
	if t.Approver == nil {
		ap.Decision, ap.By = store.DecisionDeny, store.ByPolicy
		t.j.later(store.EventApproval, ap)
		return false, "Not allowed without the user's approval, and nobody can approve it now: " + v.Reason + "."
	}
	ap.Once = v.Once
	decision, err := t.Approver.Approve(ctx, t.Session, v, ap, func() error {
		return t.j.add(store.EventApproval, ap) // asked: once durable, the UI shows the card
	})
	if err != nil {
		if ctx.Err() != nil || t.j.err() != nil { // a stop, or a failed write that ends the turn
			return false, ""
		}
		return false, "The approval could not be asked (" + err.Error() + "); the call did not run."
	}
	ap.Decision, ap.By = store.Decision(decision), store.ByUser
	if t.j.add(store.EventApproval, ap) != nil {
		return false, ""
	}
	if decision == "deny" {
		return false, "The user denied this call (" + v.Subject + "). Do not retry it; ask the user how to proceed if needed."
	}
	call.Crossing = v.Crossing
	return true, ""
}

// reminder tells the model which files the step's commands changed (seen by the
// checkpoint's git status before and after each), relative to the workspace: an edit_files or
// write_file result names its own files, and a footer repeating them after the step's
// run_command ("[also modified in this step: src/x.py]" under pytest's output) read as if the
// command had changed them. It is appended to the last result of a step (a new message each
// time, never an edit of an earlier one, so cached prefixes hold); "" when there is nothing.
func reminder(unnamed map[string]bool) string {
	if len(unnamed) == 0 {
		return ""
	}
	files := slices.Sorted(maps.Keys(unnamed))
	return "\n\n[changed by this step's commands: " + strings.Join(files, ", ") + "]"
}
