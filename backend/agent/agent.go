// Package agent is Tofu's orchestration core: the turn loop (model → tool calls → results →
// model) over a session's event log, with approvals, limits, interrupt and resume.
package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/wording"
)

// Log is what the agent needs of the store: a batch of appends is durable (one sync) before
// it returns, with gapless seqs, and on a failure it returns the events written before it.
type Log interface {
	AppendBatch(session string, entries ...store.Entry) ([]store.Event, error)
	EventsFrom(session string, from uint64) ([]store.Event, error)
}

// Tools is what the agent needs of the capability runtime (tools.Registry).
type Tools interface {
	Specs() []llm.ToolSpec
	ReadOnly(name string) bool
	Access(call tools.Call) ([]tools.Access, *tools.ArgError)
	Run(ctx context.Context, call tools.Call) (tools.Result, error)
}

// Action is a permission verdict.
type Action string

const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// Verdict is a policy's answer for one call: the action, the exact thing it is about (a
// command, a path) and why.
type Verdict struct {
	Action  Action
	Subject string
	Reason  string
	// Once is set when no grant beyond this call may be offered (outside the workspace, a
	// protected place, something only known at run time).
	Once bool
	// Detail is the policy's own record of the decision, handed back to the Approver.
	Detail any
	// Crossing is what the call needs beyond the sandbox its commands run in: once the call
	// is allowed (by the policy, the approval mode or a person), the tool receives it.
	Crossing tools.Crossing
}

// Policy decides whether a call may run, from the call and what it would touch only: nothing
// a tool returned can change a verdict.
type Policy interface {
	Check(call tools.Call, access []tools.Access) Verdict
}

// Approver puts an "ask" verdict to the user and waits: announce records the asked approval
// event (the window shows its card from it, and may answer before the wait starts). It returns
// the answer as the log records it ("allow", "allow_session", …, "deny": permission.Answer),
// or ctx's cause when the turn is interrupted.
type Approver interface {
	Approve(ctx context.Context, session string, v Verdict, req store.Approval, announce func() error) (string, error)
}

// Checkpoints records the files a call changes (their content before and after), so the
// user can undo them (backend/tools/checkpoint). Before is called just before the call runs;
// the function it returns, just after, says what changed.
type Checkpoints interface {
	Before(ctx context.Context, call tools.Call, access []tools.Access) (after func() []store.FileChange)
}

// Sink receives the live (not durable) view of a model's reply.
type Sink interface {
	Delta(text, reasoning string)
	// Reset says the reply streamed so far is void: the call is being re-run.
	Reset(reason string)
}

// Turn describes one run of the loop.
type Turn struct {
	Session string
	// Journal is the session's log in memory, kept by the caller from turn to turn (nil: Run
	// reads the log into a new one). A turn reads the log once; after that it keeps the
	// journal up to date with what it appends.
	Journal   *Journal
	Model     string
	Workspace string // where tools resolve relative paths
	// Thinking is the conversation's reasoning effort sent with every request ("": the
	// settings' level; see llm.Request.Thinking).
	Thinking string
	System   string // the stable prefix: system prompt and instruction files
	// Tools offered to the model; nil runs a plain chat turn (one model call).
	Tools    Tools
	Policy   Policy
	Approver Approver
	// MaxSteps bounds the model calls of the turn; MaxTokens the input+output tokens
	// reported over the turn (0 = no bound).
	MaxSteps  int
	MaxTokens int
	// MaxCostUSD bounds the priced cost of the turn's calls (0 = no bound; see Price).
	MaxCostUSD float64
	// Augment rewrites the messages of each request (the paper reader adds passages).
	Augment func(msgs []llm.Message) ([]llm.Message, error)
	Sink    Sink
	// Context compacts what is sent (L0 on tool outputs, L1 on every request, L3 on an
	// overflow); nil sends the log as it is. Its moves are recorded as context_state events.
	Context *compact.Manager
	// Price returns the cost in US dollars of a call to model with usage u (nil: free).
	Price func(model string, u llm.Usage) float64
	// Checkpoints, when set, records what each call that is not read-only changes in files.
	Checkpoints Checkpoints
	// Window is the model's context window in tokens, for L2 (0: the window the last call
	// reported, else unknown: no automatic summary). SummaryModel writes L2 summaries (the
	// cheap model; empty: Model), and SummaryWindow is its window (0: unknown), which bounds
	// what the summariser reads. Instructions are the instruction files (already in System),
	// re-injected after a summary.
	Window        int
	SummaryModel  string
	SummaryWindow int
	Instructions  string

	l2Failed bool // a summary failed in this turn: do not try again until the next one
	// left is how many model calls the turn may still make, this one included (MaxSteps minus
	// the steps taken): L1's cost model needs a move to pay for itself within them.
	left int

	j *journal // the turn's view of the log, shared by its copies (phases)
	// unfinished answers the calls that were running when Tofu stopped (see resume).
	unfinished map[string]store.ToolResult

	// project, when set, replaces Messages as the projection of the log onto the request
	// (an autonomous run's planner and critic see their own view).
	project func([]store.Event) []llm.Message
	// phase is the start event of the autonomous phase whose view project is (a trace
	// rebuilds it from there).
	phase uint64
}

// DefaultMaxSteps bounds a turn whose MaxSteps is 0.
const DefaultMaxSteps = 50

// repeatLimit is how many steps in a row may make the very same calls before the turn stops:
// a model that repeats itself this often is stuck, and each step costs a whole context.
const repeatLimit = 3

// Agent runs turns with one model provider, recording everything in the log.
type Agent struct {
	Log      Log
	Provider llm.Provider
}

// Interruption causes: cancel a turn's context with one of these (context.WithCancelCause)
// and the log says why it stopped (store's, so a package below the agent can use them).
var (
	ErrStoppedByUser = store.ErrStoppedByUser
	ErrShutdown      = store.ErrShutdown
)

// End is why a turn ended (store.EndDone, EndMaxSteps, …, EndError).
type End struct {
	Reason store.EndReason
	Steps  int
	Err    error // the failure for "error"

	tokens int // input+output tokens reported over the loop
}

// Run runs the loop until the model ends the turn, a limit or the user stops it, or a call
// fails. It starts from what the log holds: tool calls left without results (a crash, a stop
// before they ran) run first, without re-running finished ones; a call that had started when
// Tofu stopped is answered as "may have run partly" instead (resume); this is Continue.
//
// Every event is durable before anyone sees it. When the log cannot be written the turn ends
// at once with Reason "error" and the failure in Err: the caller must show it, since the log
// may not be able to say so.
func (a *Agent) Run(ctx context.Context, t Turn) End {
	if end, ok := a.open(&t); !ok {
		return end
	}
	end := a.loop(ctx, &t)
	return a.finish(ctx, &t, end, t.Tools != nil)
}

// open prepares t to run: its journal (up to date with the log), defaults, the context
// manager's moves recorded. It returns false with the End when the log cannot be read.
func (a *Agent) open(t *Turn) (End, bool) {
	var err error
	j := t.Journal
	switch {
	case j == nil:
		j, err = OpenJournal(a.Log, t.Session)
	case j.session != t.Session:
		err = fmt.Errorf("the journal of session %s was given for session %s", j.session, t.Session)
	default:
		err = j.Sync()
	}
	if err != nil {
		return End{Reason: store.EndError, Err: err}, false
	}
	t.j = j
	a.recordContext(t)
	if t.MaxSteps <= 0 {
		t.MaxSteps = DefaultMaxSteps
	}
	if t.Sink == nil {
		t.Sink = nopSink{}
	}
	return End{}, true
}

// finish records how a turn ended: the interruption, if it was one, and turn_end (for agent
// turns), with whatever was still queued. A turn that ran well but could not record its end
// ends with that error.
func (a *Agent) finish(ctx context.Context, t *Turn, end End, turnEnd bool) End {
	var entries []store.Entry
	if end.Reason == store.EndInterrupted {
		reason := store.InterruptUser
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			reason = store.InterruptReason(c.Error())
		}
		entries = append(entries, store.Entry{Type: store.EventInterrupted, Payload: store.Interruption{Reason: reason}})
	}
	if turnEnd {
		te := store.TurnEnd{Reason: end.Reason, Steps: end.Steps}
		if end.Err != nil {
			te.Detail = end.Err.Error()
		}
		entries = append(entries, store.Entry{Type: store.EventTurnEnd, Payload: te})
	}
	if _, err := t.j.record(entries...); err != nil && end.Reason != store.EndError {
		end = End{Reason: store.EndError, Steps: end.Steps, Err: err, tokens: end.tokens}
	}
	return end
}

func (a *Agent) loop(ctx context.Context, t *Turn) (end End) {
	tokens := 0
	defer func() { end.tokens = tokens }()
	if t.Tools != nil {
		ok := a.resume(ctx, t, t.j.snapshot())
		if err := t.j.err(); err != nil {
			return End{Reason: store.EndError, Err: err}
		}
		if !ok {
			return End{Reason: store.EndInterrupted}
		}
	}
	var lastCalls string
	repeats, cost, corrections := 0, 0.0, 0
	for step := 0; ; step++ {
		if err := t.j.err(); err != nil {
			return End{Reason: store.EndError, Steps: step, Err: err}
		}
		if step >= t.MaxSteps {
			return End{Reason: store.EndMaxSteps, Steps: step}
		}
		if t.MaxTokens > 0 && tokens >= t.MaxTokens {
			return End{Reason: store.EndMaxTokens, Steps: step}
		}
		if t.MaxCostUSD > 0 && cost >= t.MaxCostUSD {
			return End{Reason: store.EndMaxCost, Steps: step}
		}
		// L3: a request the provider refuses as too long is rebuilt harder, at most
		// compact.MaxOverflowRetries times; only the last refusal is the turn's error.
		var out stepOutcome
		t.left = t.MaxSteps - step
		// The steps left bound L1's payback estimate (request may drop it: callsLeft).
		for retry := 0; ; retry++ {
			req, rc, err := a.request(ctx, t, retry, step == 0)
			if err != nil {
				return End{Reason: store.EndError, Steps: step, Err: err}
			}
			last := t.Context == nil || retry >= compact.MaxOverflowRetries
			out = a.step(ctx, t, req, rc, !last)
			if !out.overflow || last {
				break
			}
			t.j.later(store.EventNotice, store.Notice{Text: fmt.Sprintf(
				"The request did not fit the model's context window; compacting harder and retrying (%d of %d).",
				retry+1, compact.MaxOverflowRetries)})
		}
		if out.usage != nil {
			tokens += out.usage.InputTokens + out.usage.OutputTokens
			cost += out.usage.CostUSD
		}
		switch {
		case out.interrupted:
			return End{Reason: store.EndInterrupted, Steps: step + 1}
		case out.err != nil:
			return End{Reason: store.EndError, Steps: step + 1, Err: out.err}
		case len(out.calls) == 0 && t.Tools != nil:
			if end, again := a.printedCall(t, out.text, &corrections, step); !again {
				return end
			}
			continue
		case len(out.calls) == 0 || t.Tools == nil:
			return End{Reason: store.EndDone, Steps: step + 1}
		}
		corrections = 0
		if sig := signature(out.calls); sig == lastCalls {
			repeats++
			if repeats >= repeatLimit-1 {
				return End{Reason: store.EndRepeatedCall, Steps: step + 1,
					Err: fmt.Errorf("the model made the same tool calls %d times in a row", repeatLimit)}
			}
		} else {
			lastCalls, repeats = sig, 0
		}
		ok := a.runCalls(ctx, t, out.calls)
		if err := t.j.err(); err != nil {
			return End{Reason: store.EndError, Steps: step + 1, Err: err}
		}
		if !ok {
			return End{Reason: store.EndInterrupted, Steps: step + 1}
		}
	}
}

// build assembles the next model request from events: the projection of the log, with the L2
// compaction in force applied (in the main loop), the system message, the tools, and L1 (harder
// after an overflow). The recipe says what it was built from besides the log (Rebuild does
// the same from it).
func (a *Agent) build(t *Turn, events []store.Event, retry int) (llm.Request, view, *recipe, error) {
	rc := &recipe{upto: t.j.last(), phase: t.phase, system: t.System}
	var msgs []llm.Message
	if t.project != nil {
		msgs = t.project(events)
	} else {
		msgs = t.j.messages()
	}
	if len(msgs) == 0 {
		return llm.Request{}, view{}, nil, errors.New("there is no message to answer")
	}
	v := view{raw: msgs}
	if t.summarizes() {
		v.l2 = true
		rc.l2, rc.instructions = true, t.Instructions
		v.active, v.undone = ActiveCompaction(events, msgs)
		id := ""
		if v.active != nil {
			msgs = compact.Apply(msgs, v.active, t.Instructions)
			id = v.active.ID
		}
		t.Context.Rebase(id)
	}
	var err error
	if t.Augment != nil {
		if msgs, err = t.Augment(msgs); err != nil {
			return llm.Request{}, view{}, nil, err
		}
		rc.augmented = msgs
	}
	var tools []llm.ToolSpec
	if t.Tools != nil {
		tools = t.Tools.Specs()
	}
	rc.tools = tools
	req := assemble(t.Model, t.Thinking, t.System, tools, msgs)
	if t.Context != nil {
		// L1 (and the cache breakpoints) on every request; harder after an overflow.
		// L1's cost model prices a move over the calls the turn may still make.
		cfg := t.Context.Config
		prepare := func(r *llm.Request) (compact.Report, error) { return t.Context.PrepareLeft(r, t.left) }
		if retry > 0 {
			cfg = harder(cfg, retry)
			prepare = func(r *llm.Request) (compact.Report, error) { return t.Context.PrepareWith(r, cfg) }
		}
		rep, err := prepare(&req)
		if err != nil {
			t.j.later(store.EventNotice, store.Notice{Text: "An output could not be stored for read_result: " + err.Error()})
		}
		rc.context, rc.from = &cfg, rep.From
	}
	return req, v, rc, nil
}

// assemble puts t's system message and tools around the conversation msgs.
func (a *Agent) assemble(t *Turn, msgs []llm.Message) llm.Request {
	var tools []llm.ToolSpec
	if t.Tools != nil {
		tools = t.Tools.Specs()
	}
	return assemble(t.Model, t.Thinking, t.System, tools, msgs)
}

// assemble puts the system message and the tools around the conversation msgs: the turn's
// build and a trace's Rebuild both put a request together here.
func assemble(model, thinking, system string, tools []llm.ToolSpec, msgs []llm.Message) llm.Request {
	req := llm.Request{Model: model, Messages: msgs, Thinking: thinking, Tools: tools}
	if system != "" {
		req.Messages = append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, msgs...)
	}
	return req
}

// harder is cfg made harder retry times (L3).
func harder(cfg compact.Config, retry int) compact.Config {
	for range retry {
		cfg = compact.Harder(cfg)
	}
	return cfg
}

// request builds the next model request from the log. In the main loop with a context
// manager it also runs L2: near the window (or on the last overflow retry) it summarizes
// earlier turns, records the compaction, and builds the request again. first says the turn
// starts with this request: the user is told when it is close to the threshold.
func (a *Agent) request(ctx context.Context, t *Turn, retry int, first bool) (llm.Request, *recipe, error) {
	events := t.j.snapshot()
	t.left = callsLeft(t, events, t.left)
	req, v, rc, err := a.build(t, events, retry)
	if err != nil || !v.l2 {
		return req, rc, err
	}
	cfg := harder(t.Context.Config, retry)
	est := RequestTokens(req, events)
	window := t.Window
	if window <= 0 {
		window = lastWindow(events)
	}
	l2 := cfg.L2
	if v.undone {
		// The user undid the last compaction: wait until the request fills the usable
		// window before summarizing again, so the undo is not reversed at once.
		l2.TriggerRatio = 1
	}
	trigger := ""
	switch {
	case retry == compact.MaxOverflowRetries && retry > 0:
		trigger = "overflow"
	case retry == 0 && !t.l2Failed && compact.ShouldSummarize(est, window, l2):
		trigger = "auto"
	}
	if trigger == "" {
		if th := compact.Threshold(window, l2); first && retry == 0 && l2.Enabled && th > 0 && est*10 >= th*9 {
			t.j.later(store.EventNotice, store.Notice{Text: fmt.Sprintf(
				"Context is at %d%% of the compaction threshold (%s of %s tokens): past it, earlier turns are summarized.",
				est*100/th, wording.Thousands(est), wording.Thousands(th))})
		}
		return req, rc, nil
	}
	if a.summarize(ctx, t, v, rc.upto, est, window, cfg, trigger) != nil {
		return req, rc, t.j.err()
	}
	req, _, rc, err = a.build(t, t.j.snapshot(), retry)
	return req, rc, err
}

func signature(calls []llm.ToolCall) string {
	s := ""
	for _, c := range calls {
		s += c.Name + "\x00" + string(c.Arguments) + "\x01"
	}
	return s
}

type nopSink struct{}

func (nopSink) Delta(string, string) {}
func (nopSink) Reset(string)         {}

// recordContext makes the context manager's moves part of the log. A move happens while a
// request is built: it is written with the step's reply, in the same sync.
func (a *Agent) recordContext(t *Turn) {
	if t.Context != nil && t.Context.OnMove == nil {
		j := t.j
		t.Context.OnMove = func(st compact.State) { j.later(store.EventContextState, st) }
	}
}

// ContextState returns the last context_state recorded in a session's log (zero when none):
// what a context manager for a resumed session starts from.
func ContextState(events []store.Event) compact.State {
	var st compact.State
	for _, ev := range events {
		if ev.Type == store.EventContextState {
			var s compact.State
			if ev.Decode(&s) == nil {
				st = s
			}
		}
	}
	return st
}
