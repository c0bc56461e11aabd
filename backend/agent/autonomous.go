package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/wording"
)

// Autonomous mode: a planner writes a short plan, a worker carries it out with the normal tool
// loop, and a critic checks the result and ends with a verdict (STOP, CONTINUE_WORKER,
// CONTINUE_PLANNER). A STOP whose feedback still lists failures is not accepted (the gate).
// Every phase is bracketed by `phase` events in the log; the planner and the critic see a
// brief built from the log (the task, the plan, a summary of the work), the worker sees the
// conversation with each round's brief as a user message (see Messages).

// AutoOptions bound an autonomous run.
type AutoOptions struct {
	MaxIterations int // worker rounds in one run (default DefaultMaxIterations)
	MaxReplans    int // plans after the first one in one run (default DefaultMaxReplans; <0: none)
	PhaseSteps    int // model calls of one planner or critic phase (default DefaultPhaseSteps)
	// Instructions (the workspace's instruction files) are appended to the planner's and the
	// critic's prompts; the worker has them in Turn.System already.
	Instructions string
	// PlannerPrompt and CriticPrompt replace the embedded prompts (assets/prompts).
	PlannerPrompt, CriticPrompt string
}

// Defaults of AutoOptions.
const (
	DefaultMaxIterations = 5
	DefaultMaxReplans    = 2
	DefaultPhaseSteps    = 8
)

func (o AutoOptions) withDefaults() AutoOptions {
	if o.MaxIterations <= 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MaxReplans == 0 {
		o.MaxReplans = DefaultMaxReplans
	} else if o.MaxReplans < 0 {
		o.MaxReplans = 0
	}
	if o.PhaseSteps <= 0 {
		o.PhaseSteps = DefaultPhaseSteps
	}
	if o.PlannerPrompt == "" {
		o.PlannerPrompt = assets.Prompt("planner")
	}
	if o.CriticPrompt == "" {
		o.CriticPrompt = assets.Prompt("critic")
	}
	if o.Instructions != "" {
		o.PlannerPrompt += "\n\n" + o.Instructions
		o.CriticPrompt += "\n\n" + o.Instructions
	}
	return o
}

// RunAutonomous runs planner → worker → critic rounds on the log's last user message until the
// critic's STOP passes the gate ("done"), the critic repeats itself ("stuck"), the worker rounds
// run out ("max_iterations"), or, as in Run, a token limit, a stop or an error ends it. Like
// Run it starts from what the log holds: an interrupted run goes on with the phase it was in
// (a worker round resumes its unfinished tool calls; a planner or critic phase starts again).
// t.MaxSteps bounds each worker round.
func (a *Agent) RunAutonomous(ctx context.Context, t Turn, opts AutoOptions) End {
	if end, ok := a.open(&t); !ok {
		return end
	}
	opts = opts.withDefaults()
	end := a.autonomous(ctx, &t, opts)
	return a.finish(ctx, &t, end, true)
}

// autoState is where a run stands, read from the log since the last user message.
type autoState struct {
	task      string
	round     int             // the last worker round started
	plan      string          // the current plan
	open      store.PhaseRole // the role of a phase started and not ended
	last      store.Phase     // the last phase ended
	critiques []string        // the critic's feedback, in order
}

func readAutoState(events []store.Event) autoState {
	var s autoState
	for _, ev := range events {
		switch ev.Type {
		case store.EventUser:
			var u store.UserMessage
			if ev.Decode(&u) == nil {
				s = autoState{task: u.Text + AttachmentText(u.Attachments)}
			}
		case store.EventPhase:
			var p store.Phase
			if ev.Decode(&p) != nil {
				continue
			}
			if p.State == store.PhaseStart {
				s.open = p.Role
				if p.Role == store.RoleWorker && p.Iteration > s.round {
					s.round = p.Iteration
				}
				continue
			}
			s.open, s.last = "", p
			switch p.Role {
			case store.RolePlanner:
				s.plan = p.Plan
			case store.RoleCritic:
				s.critiques = append(s.critiques, p.Feedback)
			}
		}
	}
	return s
}

func (a *Agent) autonomous(ctx context.Context, t *Turn, opts AutoOptions) End {
	events := t.j.snapshot()
	s := readAutoState(events)
	if strings.TrimSpace(s.task) == "" {
		return End{Reason: store.EndError, Err: fmt.Errorf("there is no task: the session has no user message")}
	}
	next := store.RolePlanner
	switch {
	case s.open != "":
		next = s.open
	case s.last.Role == store.RolePlanner:
		next = store.RoleWorker
	case s.last.Role == store.RoleWorker:
		next = store.RoleCritic
	case s.last.Role == store.RoleCritic:
		switch s.last.Verdict {
		case store.VerdictStop:
			return End{Reason: store.EndDone}
		case store.VerdictContinuePlanner:
			next = store.RolePlanner
		default:
			next = store.RoleWorker
		}
	}
	resume := s.open == store.RoleWorker

	var steps, tokens, rounds, replans int
	stop := func(e End) End { e.Steps, e.tokens = steps, tokens; return e }
	for {
		if t.MaxTokens > 0 && tokens >= t.MaxTokens {
			return stop(End{Reason: store.EndMaxTokens})
		}
		switch next {
		case store.RolePlanner:
			if rounds >= opts.MaxIterations {
				return stop(maxIterations(opts))
			}
			iteration := s.round + 1
			end, text := a.phase(ctx, t, opts, store.RolePlanner, iteration, plannerBrief(s, events), tokens)
			steps, tokens = steps+end.Steps, tokens+end.tokens
			if fatal(end) {
				return stop(end)
			}
			plan := strings.TrimSpace(text)
			if plan == "" {
				plan = "(The planner wrote no plan: work on the task directly.)"
			}
			s.plan = plan
			s.last = store.Phase{Role: store.RolePlanner, Iteration: iteration, State: store.PhaseEnd, Plan: plan, Reason: end.Reason, Steps: end.Steps}
			if err := t.j.add(store.EventPhase, s.last); err != nil {
				return stop(End{Reason: store.EndError, Err: err})
			}
			next = store.RoleWorker

		case store.RoleWorker:
			if !resume {
				if rounds >= opts.MaxIterations {
					return stop(maxIterations(opts))
				}
				s.round++
				start := store.Phase{Role: store.RoleWorker, Iteration: s.round, State: store.PhaseStart, Brief: workerBrief(s)}
				if err := t.j.add(store.EventPhase, start); err != nil {
					return stop(End{Reason: store.EndError, Err: err})
				}
			}
			resume = false
			rounds++
			wt := *t
			if t.MaxTokens > 0 {
				wt.MaxTokens = t.MaxTokens - tokens
			}
			end := a.loop(ctx, &wt)
			steps, tokens = steps+end.Steps, tokens+end.tokens
			if fatal(end) {
				return stop(end)
			}
			// A round that hit its step limit or repeated itself is still reviewed: the critic
			// says what is missing.
			s.last = store.Phase{Role: store.RoleWorker, Iteration: s.round, State: store.PhaseEnd, Reason: end.Reason, Steps: end.Steps}
			if err := t.j.add(store.EventPhase, s.last); err != nil {
				return stop(End{Reason: store.EndError, Err: err})
			}
			next = store.RoleCritic

		case store.RoleCritic:
			events = t.j.snapshot()
			end, text := a.phase(ctx, t, opts, store.RoleCritic, s.round, criticBrief(s, events, t.Workspace), tokens)
			steps, tokens = steps+end.Steps, tokens+end.tokens
			if fatal(end) {
				return stop(end)
			}
			p := judge(text)
			p.Iteration, p.Reason, p.Steps = s.round, end.Reason, end.Steps
			if p.Verdict == store.VerdictContinuePlanner && replans >= opts.MaxReplans {
				p.Claimed, p.Verdict = p.Verdict, store.VerdictContinueWorker
				p.Gate = fmt.Sprintf("the replan limit (%d) is reached: the worker goes on", opts.MaxReplans)
			}
			if err := t.j.add(store.EventPhase, p); err != nil {
				return stop(End{Reason: store.EndError, Err: err})
			}
			s.last = p
			if p.Verdict == store.VerdictStop {
				return stop(End{Reason: store.EndDone})
			}
			if n := len(s.critiques); n > 0 && sameCritique(s.critiques[n-1], p.Feedback) {
				return stop(End{Reason: store.EndStuck, Err: fmt.Errorf("the critic repeated its critique: %s", clipLine(p.Feedback, 200))})
			}
			s.critiques = append(s.critiques, p.Feedback)
			next = store.RoleWorker
			if p.Verdict == store.VerdictContinuePlanner {
				replans++
				next = store.RolePlanner
			}
		}
	}
}

// fatal says whether a phase's ending ends the whole run.
func fatal(e End) bool {
	return e.Reason == store.EndInterrupted || e.Reason == store.EndError || e.Reason == store.EndMaxTokens
}

func maxIterations(o AutoOptions) End {
	return End{Reason: store.EndMaxIterations, Err: fmt.Errorf("%d worker rounds and the critic still asks for more", o.MaxIterations)}
}

// phase runs a planner or critic phase: its own prompt, the brief as its only message, the
// read-only tools (and, for the critic, run_command where the policy allows it without asking),
// at most opts.PhaseSteps model calls. It returns how the loop ended and the phase's last text.
func (a *Agent) phase(ctx context.Context, t *Turn, opts AutoOptions, role store.PhaseRole, iteration int, brief string, used int) (End, string) {
	evs, err := t.j.record(store.Entry{Type: store.EventPhase, Payload: store.Phase{Role: role, Iteration: iteration, State: store.PhaseStart, Brief: brief}})
	if err != nil {
		return End{Reason: store.EndError, Err: err}, ""
	}
	start := evs[len(evs)-1]
	pt := *t
	pt.System = opts.PlannerPrompt
	if role == store.RoleCritic {
		pt.System = opts.CriticPrompt
	}
	pt.MaxSteps = opts.PhaseSteps
	if t.MaxTokens > 0 {
		pt.MaxTokens = t.MaxTokens - used
	}
	if t.Tools != nil {
		pt.Tools = phaseTools{Tools: t.Tools, role: role}
		pt.Policy, pt.Approver = phasePolicy{t.Policy}, nil
	}
	pt.Augment = nil
	pt.project = func(events []store.Event) []llm.Message { return phaseMessages(events, start.Seq, brief) }
	pt.phase = start.Seq
	end := a.loop(ctx, &pt)
	return end, lastText(t.j.snapshot(), start.Seq)
}

// phaseMessages is what a planner or critic phase sends: its brief, then its own tool calls and
// results (the events after its start).
func phaseMessages(events []store.Event, startSeq uint64, brief string) []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: brief}}
	for i, ev := range events {
		if ev.Seq == startSeq {
			return append(msgs, Messages(events[i+1:])...)
		}
	}
	return msgs
}

// lastText is the text of the last reply after seq that has one.
func lastText(events []store.Event, after uint64) string {
	text := ""
	for _, ev := range events {
		if ev.Seq <= after || ev.Type != store.EventAssistant {
			continue
		}
		var m store.AssistantMessage
		if ev.Decode(&m) == nil && strings.TrimSpace(m.Text) != "" {
			text = m.Text
		}
	}
	return text
}

// phaseTools offers a planner the read-only tools, and a critic run_command besides.
type phaseTools struct {
	Tools
	role store.PhaseRole
}

func (p phaseTools) allowed(name string) bool {
	return name != "ask_human" && (p.Tools.ReadOnly(name) || (p.role == store.RoleCritic && name == "run_command"))
}

func (p phaseTools) Specs() []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, s := range p.Tools.Specs() {
		if p.allowed(s.Name) {
			out = append(out, s)
		}
	}
	return out
}

func (p phaseTools) refuse(name string) *tools.ArgError {
	var names []string
	for _, s := range p.Specs() {
		names = append(names, s.Name)
	}
	return &tools.ArgError{Tool: name, Unknown: true, Problems: []tools.Problem{{
		Message: "the " + string(p.role) + " does not change anything; its tools are " + strings.Join(names, ", "),
	}}}
}

func (p phaseTools) Access(c tools.Call) ([]tools.Access, *tools.ArgError) {
	if !p.allowed(c.Name) {
		return nil, p.refuse(c.Name)
	}
	return p.Tools.Access(c)
}

func (p phaseTools) Run(ctx context.Context, c tools.Call) (tools.Result, error) {
	if !p.allowed(c.Name) {
		return p.refuse(c.Name).Result(), nil
	}
	return p.Tools.Run(ctx, c)
}

// phasePolicy lets a planner or critic run only what the policy allows without asking: nobody
// is asked in the middle of a review.
type phasePolicy struct{ inner Policy }

func (p phasePolicy) Check(c tools.Call, access []tools.Access) Verdict {
	if p.inner == nil {
		return Verdict{Action: Allow}
	}
	v := p.inner.Check(c, access)
	if v.Action == Ask {
		v.Action = Deny
		v.Reason = strings.TrimSpace(v.Reason + " (the planner and the critic run only what is allowed without asking)")
	}
	return v
}

// Briefs. They are built from the log only, so a resumed run builds the same ones.

func plannerBrief(s autoState, events []store.Event) string {
	var b strings.Builder
	b.WriteString("Task:\n" + strings.TrimSpace(s.task) + "\n")
	if s.plan != "" && s.last.Role == store.RoleCritic {
		b.WriteString("\nThe previous plan:\n" + s.plan + "\n")
		if w := workSummary(events, ""); w != "" {
			b.WriteString("\nWork done so far:\n" + w)
		}
		b.WriteString(fmt.Sprintf("\nThe critic asks for a new plan after round %d:\n%s\n", s.last.Iteration, strings.TrimSpace(s.last.Feedback)))
		b.WriteString("\nWrite a revised plan.")
		return b.String()
	}
	b.WriteString("\nWrite the plan.")
	return b.String()
}

func workerBrief(s autoState) string {
	switch s.last.Role {
	case store.RolePlanner:
		head := "Plan:\n"
		if s.last.Iteration > 1 {
			head = fmt.Sprintf("Revised plan (the critic asked for one after round %d):\n", s.last.Iteration-1)
		}
		return head + s.plan + "\n\nCarry out this plan. When the task is done and verified, answer briefly: what you changed and how you verified it."
	case store.RoleCritic:
		var b strings.Builder
		fmt.Fprintf(&b, "A reviewer checked round %d: the task is not done yet.\n", s.last.Iteration)
		if f := strings.TrimSpace(s.last.Feedback); f != "" {
			b.WriteString("\n" + f + "\n")
		}
		if s.last.Gate != "" {
			b.WriteString("\n(" + s.last.Gate + ")\n")
		}
		b.WriteString("\nFix what is listed, verify it, and answer briefly.")
		return b.String()
	}
	return ""
}

func criticBrief(s autoState, events []store.Event, workspace string) string {
	var b strings.Builder
	b.WriteString("Task:\n" + strings.TrimSpace(s.task) + "\n")
	if s.plan != "" {
		b.WriteString("\nPlan:\n" + s.plan + "\n")
	}
	if w := workSummary(events, workspace); w != "" {
		b.WriteString("\nWork done:\n" + w)
	} else {
		b.WriteString("\nThe worker used no tools.\n")
	}
	if ans := workerAnswer(events, s.round); ans != "" {
		fmt.Fprintf(&b, "\nThe worker's answer (round %d):\n%s\n", s.round, wording.Clip(ans, 2000))
	}
	if n := len(s.critiques); n > 0 && s.last.Role == store.RoleWorker {
		b.WriteString("\nYour previous review:\n" + wording.Clip(s.critiques[n-1], 1500) + "\n")
	}
	if g := lastGate(events); g != "" {
		b.WriteString("\nYour last STOP was not accepted: " + g + ". Say STOP only when nothing is left to fix, and then do not describe problems.\n")
	}
	b.WriteString("\nCheck the work, then end with the verdict line.")
	return b.String()
}

// lastGate is why the gate overrode the critic's last STOP, when its last review was one.
func lastGate(events []store.Event) string {
	gate := ""
	for _, ev := range events {
		var p store.Phase
		if ev.Type == store.EventUser {
			gate = ""
		} else if ev.Type == store.EventPhase && ev.Decode(&p) == nil && p.Role == store.RoleCritic && p.State == store.PhaseEnd {
			gate = ""
			if p.Claimed == store.VerdictStop {
				gate = p.Gate
			}
		}
	}
	return gate
}

// maxSummaryLines bounds the work summary a critic or planner reads (the latest lines stay).
const maxSummaryLines = 40

// workSummary lists the worker's tool calls since the task, one line each (name, arguments,
// outcome, the result's first line), by round, with the files changed.
func workSummary(events []store.Event, workspace string) string {
	var lines []string
	files := map[string]bool{}
	calls := map[string]llm.ToolCall{}
	worker, round := false, 0
	for _, ev := range events {
		switch ev.Type {
		case store.EventUser:
			lines, files, calls, worker = nil, map[string]bool{}, map[string]llm.ToolCall{}, false
		case store.EventPhase:
			var p store.Phase
			if ev.Decode(&p) != nil {
				continue
			}
			worker = p.Role == store.RoleWorker && p.State == store.PhaseStart
			if worker && p.Iteration != round {
				round = p.Iteration
				lines = append(lines, fmt.Sprintf("Round %d:", round))
			}
		case store.EventAssistant:
			var m store.AssistantMessage
			if worker && ev.Decode(&m) == nil {
				for _, c := range m.ToolCalls {
					calls[c.ID] = c
				}
			}
		case store.EventToolResult:
			var r store.ToolResult
			if !worker || ev.Decode(&r) != nil {
				continue
			}
			c := calls[r.CallID]
			outcome := "ok"
			if r.Interrupted {
				outcome = "interrupted"
			} else if r.IsError {
				outcome = "error"
			}
			if code, ok := exitCode(r.Meta); ok && code != 0 {
				outcome = fmt.Sprintf("exit %d", code)
			}
			line := fmt.Sprintf("- %s %s → %s", r.Name, clipLine(string(c.Arguments), 160), outcome)
			if first := clipLine(firstLine(r.Text), 160); first != "" {
				line += ": " + first
			}
			lines = append(lines, line)
			for _, f := range r.Files {
				files[strings.TrimPrefix(f, strings.TrimRight(workspace, "/")+"/")] = true
			}
		}
	}
	if len(lines) > maxSummaryLines {
		lines = append([]string{fmt.Sprintf("(%d earlier lines left out)", len(lines)-maxSummaryLines)}, lines[len(lines)-maxSummaryLines:]...)
	}
	out := strings.Join(lines, "\n")
	if len(files) > 0 {
		var fs []string
		for f := range files {
			fs = append(fs, f)
		}
		sort.Strings(fs)
		out += "\nFiles changed: " + strings.Join(fs, ", ")
	}
	if out != "" {
		out += "\n"
	}
	return out
}

// workerAnswer is the worker's last text in round.
func workerAnswer(events []store.Event, round int) string {
	in, text := false, ""
	for _, ev := range events {
		switch ev.Type {
		case store.EventPhase:
			var p store.Phase
			if ev.Decode(&p) == nil {
				in = p.Role == store.RoleWorker && p.State == store.PhaseStart && p.Iteration == round
			}
		case store.EventAssistant:
			var m store.AssistantMessage
			if in && ev.Decode(&m) == nil && strings.TrimSpace(m.Text) != "" {
				text = m.Text
			}
		}
	}
	return strings.TrimSpace(text)
}

// exitCode reads run_command's exit code from a result's meta.
func exitCode(meta any) (int, bool) {
	b, err := json.Marshal(meta)
	if err != nil {
		return 0, false
	}
	var m struct {
		ExitCode *int `json:"exit_code"`
	}
	if json.Unmarshal(b, &m) != nil || m.ExitCode == nil {
		return 0, false
	}
	return *m.ExitCode, true
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// clipLine puts s on one line of at most n bytes (cut at a rune boundary).
func clipLine(s string, n int) string {
	return wording.ClipLine(s, n)
}

// The verdict and the gate.

var verdictLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^[\s>*_#\x60-]*verdict[\s*_\x60]*[:=\-–—]?[\s*_\x60]*(stop|continue[ _-]?worker|continue[ _-]?planner)\b.*$`)
})

// judge reads a critique: the verdict line (the last one, if several), the feedback (the rest),
// and the gate: a STOP whose feedback still lists failures is CONTINUE_WORKER, and so is a
// critique without a verdict.
func judge(text string) store.Phase {
	p := store.Phase{Role: store.RoleCritic, State: store.PhaseEnd}
	locs := verdictLine().FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		p.Feedback = strings.TrimSpace(text)
		p.Verdict = store.VerdictContinueWorker
		p.Gate = "the critic gave no verdict line"
		return p
	}
	m := locs[len(locs)-1]
	word := strings.ToUpper(text[m[2]:m[3]])
	switch {
	case strings.HasPrefix(word, "STOP"):
		p.Verdict = store.VerdictStop
	case strings.HasSuffix(word, "PLANNER"):
		p.Verdict = store.VerdictContinuePlanner
	default:
		p.Verdict = store.VerdictContinueWorker
	}
	p.Feedback = strings.TrimSpace(text[:m[0]] + text[m[1]:])
	if p.Verdict == store.VerdictStop {
		if bad := failures(p.Feedback); len(bad) > 0 {
			p.Claimed, p.Verdict = p.Verdict, store.VerdictContinueWorker
			p.Gate = "the feedback still lists failures: " + clipLine(strings.Join(bad, " / "), 300)
		}
	}
	return p
}

// critiqueRE are compiled on first use, not at package init (which every start of the
// program pays for).
var critiqueRE = sync.OnceValue(func() critiquePatterns {
	return critiquePatterns{
		uncheckedItem: regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])?\s*\[ \]`),
		clauseSplit:   regexp.MustCompile(`[\n;]+|[.!?](?:\s+|$)`),
		// Phrases that say the opposite of a failure ("no errors", "0 failed", "failures: 0") or
		// name a kind of code ("error handling").
		notAFailure: regexp.MustCompile(`\b(?:no|0|zero|without|none|never|nothing)\s+(?:\w+\s+){0,2}?(?:fail\w*|errors?|issues?|problems?)\b|\b(?:fail\w*|errors?)\s*[:=]\s*0\b|\berrors?\s+(?:handling|message|messages|path|paths|case|cases|wrapping|value|values|type|types|check|checks|code|codes)\b|\bfail(?:s|ed)?\s+(?:fast|safe|open|closed)\b`),
		resolved:    regexp.MustCompile(`\b(?:fixed|resolved|addressed|corrected|now pass\w*|pass(?:es)? now)\b`),
		unresolved:  regexp.MustCompile(`\bnot\s+(?:yet\s+)?(?:fixed|resolved|addressed|corrected)\b`),
		failure:     regexp.MustCompile(`\bfail(?:s|ed|ing|ure|ures)?\b|\berrors?\b|\bnot\s+(?:yet\s+)?(?:fixed|working|passing|done|implemented|resolved|addressed)\b|\bbroken\b|\b(?:does|do|did)\s*(?:n't|not)\s+(?:pass|work|compile|build|run)\b|\bpanic(?:s|ked)?\b|\bregress(?:ion|ions|ed)\b|\bstill\s+(?:missing|wrong|open|red)\b|\btodo\b`),
	}
})

type critiquePatterns struct {
	uncheckedItem, clauseSplit, notAFailure, resolved, unresolved, failure *regexp.Regexp
}

// failures returns the lines of a critique that still report a problem: unchecked items
// ("- [ ] …") and clauses that mention a failure or an error, unless they say it is gone ("no
// errors", "fixed the failing test").
func failures(feedback string) []string {
	re := critiqueRE()
	var out []string
	for _, line := range strings.Split(feedback, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if re.uncheckedItem.MatchString(line) {
			out = append(out, line)
			continue
		}
		for _, clause := range re.clauseSplit.Split(strings.ToLower(line), -1) {
			if re.resolved.MatchString(clause) && !re.unresolved.MatchString(clause) {
				continue
			}
			if re.failure.MatchString(re.notAFailure.ReplaceAllString(clause, " ")) {
				out = append(out, line)
				break
			}
		}
	}
	return out
}

// sameCritique says whether two critiques say the same thing: equal once normalized, or
// (long enough to judge) sharing at least 75% of the word pairs of the longer one.
func sameCritique(a, b string) bool {
	wa, wb := words(a), words(b)
	if strings.Join(wa, " ") == strings.Join(wb, " ") {
		return true
	}
	if len(wa) < 6 || len(wb) < 6 {
		return false
	}
	pa, pb := pairs(wa), pairs(wb)
	common := 0
	for p := range pa {
		if pb[p] {
			common++
		}
	}
	return float64(common) >= 0.75*float64(max(len(pa), len(pb)))
}

var nonWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^\p{L}\p{N}]+`) })

func words(s string) []string {
	return strings.Fields(nonWord().ReplaceAllString(strings.ToLower(s), " "))
}

func pairs(ws []string) map[string]bool {
	m := map[string]bool{}
	for i := 0; i+1 < len(ws); i++ {
		m[ws[i]+" "+ws[i+1]] = true
	}
	return m
}
