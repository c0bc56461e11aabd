package agent

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools/procgroup"
)

// unfinishedOutputCap bounds the captured output an unfinished call's answer carries (its end:
// errors are usually there); L0 applies on top, as to any result.
const unfinishedOutputCap = 30_000

// resume prepares a turn that starts from a log Tofu may have left in the middle of a step (a
// crash, a kill, a stop): it kills the process groups that outlived the Tofu that started
// them, answers the calls that were running then without running them again ("may have run
// partly", with the output captured), and runs the calls that never started. Read-only calls
// record no start and simply run again: they change nothing. It returns false when the turn
// was interrupted meanwhile.
func (a *Agent) resume(ctx context.Context, t *Turn, events []store.Event) bool {
	r := readRecovery(events)
	if len(r.orphans) > 0 {
		if _, err := procgroup.Reap(r.orphans...); err != nil {
			t.j.later(store.EventNotice, store.Notice{Text: "Processes left running by an earlier Tofu could not all be stopped: " + err.Error()})
		}
	}
	pending := Pending(events)
	if len(pending) == 0 {
		r.removeOutputs()
		return true
	}
	t.unfinished = map[string]store.ToolResult{}
	for _, c := range pending {
		switch {
		case !r.started[c.ID] || resumable(t.Tools, c.Name):
		case launchesOnly(c.Name) && len(r.groups[c.ID]) == 0:
			// Its process is recorded before it runs anything: none, it never ran.
			t.unfinished[c.ID] = store.ToolResult{CallID: c.ID, Name: c.Name, Text: neverStarted, IsError: true, Unfinished: true}
		default:
			t.unfinished[c.ID] = a.unfinishedResult(t, c.ID, c.Name, r.groups[c.ID])
		}
	}
	ok := a.runCalls(ctx, t, pending)
	t.unfinished = nil
	if ok {
		r.removeOutputs()
	}
	return ok
}

// removeOutputs deletes the output copies of the commands an earlier Tofu left running, once
// their calls are answered (now, or closed by a later message): a stop or a crash before that
// leaves them for the next Continue.
func (r recovery) removeOutputs() {
	for _, g := range r.orphans {
		if g.Output != "" {
			os.Remove(g.Output)
		}
	}
}

// recovery is what a log says about calls and process groups Tofu may have left behind.
type recovery struct {
	// started and groups cover the calls of the last assistant message: which recorded a
	// start, and the process groups each launched.
	started map[string]bool
	groups  map[string][]procgroup.Group
	// orphans are the groups that may still be running: background jobs, and foreground
	// commands whose call has no result (a finished command's group was killed by its Tofu).
	orphans []procgroup.Group
}

func readRecovery(events []store.Event) recovery {
	r := recovery{started: map[string]bool{}, groups: map[string][]procgroup.Group{}}
	running := map[string][]procgroup.Group{} // foreground groups awaiting their call's result
	for _, ev := range events {
		switch ev.Type {
		case store.EventAssistant:
			// Call ids may repeat across replies (some providers number them per reply).
			r.started, r.groups = map[string]bool{}, map[string][]procgroup.Group{}
		case store.EventToolStart:
			var s store.ToolStart
			if ev.Decode(&s) == nil {
				r.started[s.CallID] = true
			}
		case store.EventProcess:
			var g procgroup.Group
			if ev.Decode(&g) != nil {
				continue
			}
			r.groups[g.CallID] = append(r.groups[g.CallID], g)
			if g.Job != "" {
				r.orphans = append(r.orphans, g)
			} else {
				running[g.CallID] = append(running[g.CallID], g)
			}
		case store.EventToolResult:
			var res store.ToolResult
			if ev.Decode(&res) == nil {
				delete(running, res.CallID)
			}
		}
	}
	for _, gs := range running {
		r.orphans = append(r.orphans, gs...)
	}
	var live []procgroup.Group
	for _, g := range r.orphans {
		if procgroup.Orphaned(g) {
			live = append(live, g)
		}
	}
	r.orphans = live
	return r
}

// launchesOnly says whether a tool changes nothing but through the process groups it starts,
// each recorded (EventProcess) before it runs anything: such a call with a start and no group
// was stopped before its command began.
func launchesOnly(name string) bool { return name == "run_command" }

// neverStarted answers a call of a launchesOnly tool that Tofu stopped before its process began.
const neverStarted = "[Tofu stopped (it crashed or was killed) before this command started: it did not run at all. Run it again if it is still needed.]"

// unfinishedResult is the answer to a call that was running when Tofu stopped.
func (a *Agent) unfinishedResult(t *Turn, id, name string, groups []procgroup.Group) store.ToolResult {
	var b strings.Builder
	b.WriteString("[Tofu stopped while this call was running (it crashed or was killed) and never recorded its result. " +
		"It was not run again: it may have run partly or completely. Check its effects before running it again.]")
	for _, g := range groups {
		if g.Output == "" {
			continue
		}
		out, err := tail(g.Output, unfinishedOutputCap)
		switch {
		case err != nil:
			b.WriteString("\n[its output was not kept]")
		case out == "":
			b.WriteString("\n[it printed nothing before the stop]")
		default:
			b.WriteString("\nOutput before the stop:\n")
			b.WriteString(out)
		}
	}
	text := b.String()
	if t.Context != nil {
		if kept, err := t.Context.Enter(name, text); err == nil {
			text = kept
		}
	}
	return store.ToolResult{CallID: id, Name: name, Text: text, IsError: true, Unfinished: true}
}

// tail reads the last n bytes of a file as text.
func tail(path string, n int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	skip := max(fi.Size()-n, 0)
	if _, err := f.Seek(skip, io.SeekStart); err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return "", err
	}
	s := strings.ToValidUTF8(string(b), "�")
	if skip > 0 {
		s = fmt.Sprintf("[… %d bytes before this not shown …]\n", skip) + s
	}
	return s, nil
}

// Resumer is implemented by a toolset some of whose tools keep their own progress in the log
// (spawn_agents): such a call, interrupted or cut by a crash, is run again by Continue and
// picks up where its log says it stopped, instead of being answered as "may have run partly".
type Resumer interface {
	Resumable(name string) bool
}

func resumable(ts Tools, name string) bool {
	r, ok := ts.(Resumer)
	return ok && r.Resumable(name)
}
