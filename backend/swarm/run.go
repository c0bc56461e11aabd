package swarm

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// run is one spawn_agents call: its graph, each agent's last state, and what its agents run
// with. Its state is a projection of the call's swarm events in the parent's log.
type run struct {
	s         *Swarm
	parent    string
	callID    string
	workspace string
	model     string // the parent turn's model: the main tier
	approve   string
	// prompt is the parent turn's terminal prompt (`tofu run`), which sub-agents' approvals
	// are put to, naming the agent and its session (nil: the window answers them in its cards).
	prompt   func(store.Approval)
	cfg      config.Config
	parallel int
	lim      *limiter
	spaces   *workspaces

	// statusMu orders the agents' state changes: one that depends on the state (answered)
	// checks and records at once, never after a later one.
	statusMu  sync.Mutex
	mu        sync.Mutex
	agents    []store.SwarmAgent
	status    []store.SwarmStatus
	rounds    int    // master rounds decided
	synthesis string // set once the call is answered
	found     bool   // the log already held this call's swarm
}

// spawn answers a spawn_agents call: it starts the swarm, or resumes it from the log when the
// call runs again (Continue after a stop or a crash).
func (s *Swarm) spawn(ctx context.Context, spec session.Spec, call tools.Call, add []AgentSpec) (tools.Result, error) {
	cfg, err := s.o.Config()
	if err != nil {
		return tools.Result{}, err
	}
	r := &run{s: s, parent: spec.Session, callID: call.ID, workspace: spec.Workspace, model: spec.Model, cfg: cfg,
		approve: childApproval(spec.Approve, spec.Asker != nil || spec.Prompt != nil), prompt: spec.Prompt}
	if r.model == "" {
		r.model = cfg.Models.Main
	}
	if err := r.load(); err != nil {
		return tools.Result{}, err
	}
	if r.synthesis != "" {
		return r.answer(), nil
	}
	r.parallel = s.parallel(cfg, r.model)
	r.lim = s.limiter(cfg, r.model, r.parallel)
	r.spaces = newWorkspaces(ctx, r.workspace)
	if !r.found {
		if err := validate(0, add); err != nil {
			return tools.Errorf(err.Error() + ". Nothing was started: fix the list and call spawn_agents again."), nil
		}
		if err := r.addAgents(add); err != nil {
			return tools.Result{}, err
		}
	}
	for {
		if err := r.drain(ctx); err != nil {
			return tools.Result{Text: "The swarm was stopped."}, err
		}
		more, text, err := r.master(ctx)
		if err != nil {
			return tools.Result{Text: "The swarm was stopped."}, err
		}
		if len(more) == 0 {
			if err := r.record(store.Swarm{Kind: store.SwarmKindSynthesis, Text: text}); err != nil {
				return tools.Result{}, err
			}
			r.synthesis = text
			return r.answer(), nil
		}
		if err := r.addAgents(more); err != nil {
			return tools.Result{}, err
		}
	}
}

// childApproval is the approval mode of the agents' turns: the parent's. An "ask" stays one
// where someone answers the parent: the window (the swarm card shows the agent's approval
// card, answered for the agent's session) or the terminal of `tofu run` (its prompt asks for
// the agent, and the answer goes to the agent's session). Where nobody answers the parent
// (`tofu mcp serve`), "ask" becomes "safe": what the rules and grants allow runs, the rest is
// denied with the reason, which the agent reports.
func childApproval(mode string, answered bool) string {
	m, err := permission.ParseMode(mode)
	if err != nil || (m == permission.ModeAsk && !answered) {
		return string(permission.ModeSafe)
	}
	return string(m)
}

// answer is the call's result: the synthesis, then the dashboard line.
func (r *run) answer() tools.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return tools.Result{
		Text: r.synthesis + "\n\n" + describe(r.agents, r.status, r.rounds),
		Meta: map[string]any{"swarm": r.callID, "agents": len(r.agents)},
	}
}

// load reads the call's swarm from the parent's log. An agent that was running or stopped is
// pending again with its session, which it continues.
func (r *run) load() error {
	evs, err := r.s.o.Store.Events(r.parent)
	if err != nil {
		return fmt.Errorf("read the swarm's log: %w", err)
	}
	for _, ev := range evs {
		if ev.Type != store.EventSwarm {
			continue
		}
		var sw store.Swarm
		if ev.Decode(&sw) != nil || sw.CallID != r.callID {
			continue
		}
		r.found = true
		switch sw.Kind {
		case store.SwarmKindGraph:
			for _, a := range sw.Agents {
				r.agents = append(r.agents, a)
				r.status = append(r.status, store.SwarmStatus{Index: a.Index, State: store.SwarmPending})
			}
		case store.SwarmKindAgent:
			if sw.Agent != nil && sw.Agent.Index < len(r.status) {
				r.status[sw.Agent.Index] = *sw.Agent
			}
		case store.SwarmKindRound:
			r.rounds++
		case store.SwarmKindSynthesis:
			r.synthesis = sw.Text
		}
	}
	return nil
}

// addAgents records new agents (their models chosen by role) and makes them pending.
func (r *run) addAgents(add []AgentSpec) error {
	r.mu.Lock()
	have := len(r.agents)
	var out []store.SwarmAgent
	for i, a := range add {
		role, _ := parseRole(a.Role)
		out = append(out, store.SwarmAgent{Index: have + i, Objective: strings.TrimSpace(a.Objective),
			Context: strings.TrimSpace(a.Context), Role: role, DependsOn: a.DependsOn, Model: modelFor(role, r.cfg, r.model)})
	}
	r.mu.Unlock()
	if err := r.record(store.Swarm{Kind: store.SwarmKindGraph, Agents: out, Parallel: r.parallel}); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range out {
		r.agents = append(r.agents, a)
		r.status = append(r.status, store.SwarmStatus{Index: a.Index, State: store.SwarmPending})
	}
	return nil
}

// record appends a swarm event of the call to the parent's log.
func (r *run) record(sw store.Swarm) error {
	sw.CallID = r.callID
	if sw.Round == 0 {
		r.mu.Lock()
		sw.Round = r.rounds + 1
		r.mu.Unlock()
	}
	if _, err := r.s.o.Store.Append(r.parent, store.EventSwarm, sw); err != nil {
		return fmt.Errorf("record the swarm: %w", err)
	}
	return nil
}

// setStatus records an agent's new state and keeps it.
func (r *run) setStatus(st store.SwarmStatus) error {
	r.statusMu.Lock()
	defer r.statusMu.Unlock()
	r.mu.Lock()
	r.status[st.Index] = st
	r.mu.Unlock()
	return r.record(store.Swarm{Kind: store.SwarmKindAgent, Agent: &st})
}

// answered records agent i running again once the approval it waited for in session was
// answered, unless it has moved on meanwhile (another state, another session).
func (r *run) answered(i int, session string) {
	r.statusMu.Lock()
	defer r.statusMu.Unlock()
	r.mu.Lock()
	st := r.status[i]
	ok := st.State == store.SwarmWaiting && st.Session == session
	if ok {
		st.State, st.Asking = store.SwarmRunning, ""
		r.status[i] = st
	}
	r.mu.Unlock()
	if ok {
		// The card's "waiting" line stays until the agent's next state is recorded, which
		// reports a store that cannot write.
		_ = r.record(store.Swarm{Kind: store.SwarmKindAgent, Agent: &st})
	}
}

func (r *run) get(i int) (store.SwarmAgent, store.SwarmStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.agents[i], r.status[i]
}

// drain runs every agent not finished yet, each the moment its dependencies are done and a
// slot is free (no waves: a slow agent holds up only the agents that need its result). An
// agent whose dependency failed for good is skipped. It returns ctx's cause when stopped,
// after every running agent has recorded where it stopped.
func (r *run) drain(ctx context.Context) error {
	type outcome struct {
		i  int
		st store.SwarmStatus
	}
	finished := make(chan outcome)
	running := map[int]bool{}
	for {
		if ctx.Err() == nil {
			if err := r.skipBlocked(); err != nil {
				return err
			}
			for _, i := range r.ready(running) {
				if len(running) >= r.parallel {
					break
				}
				running[i] = true
				go func() { finished <- outcome{i, r.exec(ctx, i)} }()
			}
		}
		if len(running) == 0 {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return nil
		}
		o := <-finished
		delete(running, o.i)
	}
}

// ready lists the pending agents, not running, whose dependencies are all done, in index order.
func (r *run) ready(running map[int]bool) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for i, st := range r.status {
		if running[i] || !(st.State == store.SwarmPending || st.State == store.SwarmRunning || st.State == store.SwarmWaiting ||
			st.State == store.SwarmStopped || st.State == store.SwarmRetrying) {
			continue
		}
		ok := true
		for _, d := range r.agents[i].DependsOn {
			ok = ok && r.status[d].State == store.SwarmDone
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// skipBlocked records as skipped the pending agents that depend on one that failed or was
// skipped, until none is left.
func (r *run) skipBlocked() error {
	for {
		r.mu.Lock()
		skip := -1
		var why string
		for i, st := range r.status {
			if st.State != store.SwarmPending {
				continue
			}
			for _, d := range r.agents[i].DependsOn {
				if s := r.status[d].State; s == store.SwarmFailed || s == store.SwarmSkipped {
					skip, why = i, fmt.Sprintf("agent %d, whose result it needs, %s", d, s)
					break
				}
			}
			if skip >= 0 {
				break
			}
		}
		r.mu.Unlock()
		if skip < 0 {
			return nil
		}
		if err := r.setStatus(store.SwarmStatus{Index: skip, State: store.SwarmSkipped, Error: why}); err != nil {
			return err
		}
	}
}

// exec runs agent i to its end: its attempts, each a child session (the first continues the
// session an earlier Tofu left running), until one finishes or the attempts run out.
func (r *run) exec(ctx context.Context, i int) store.SwarmStatus {
	_, prev := r.get(i)
	attempt, cont := prev.Attempt, ""
	if prev.Session != "" && (prev.State == store.SwarmRunning || prev.State == store.SwarmWaiting || prev.State == store.SwarmStopped) {
		cont = prev.Session
	} else {
		attempt++
	}
	attempt = max(attempt, 1)
	for {
		st, release := r.attempt(ctx, i, attempt, cont)
		if ctx.Err() != nil {
			st.State = store.SwarmStopped
		}
		if st.State == store.SwarmFailed && attempt < r.s.o.MaxAttempts {
			st.State = store.SwarmRetrying
		}
		err := r.setStatus(st)
		release() // after its end is recorded: the log shows coders taking turns as they did
		if err != nil || st.State != store.SwarmRetrying {
			return st
		}
		attempt, cont = attempt+1, ""
	}
}

// attempt runs one attempt of agent i in a new child session, or continues session cont.
// release frees what the attempt holds (outside git, the coders' turn) once its end is recorded.
func (r *run) attempt(ctx context.Context, i, attempt int, cont string) (st store.SwarmStatus, release func()) {
	// The duration counts the attempt's setup (its session, its brief) with its turn.
	start := time.Now()
	release = func() {}
	a, prev := r.get(i)
	st = store.SwarmStatus{Index: i, Attempt: attempt, State: store.SwarmFailed, Session: cont}
	ro := roles[a.Role]
	continued := cont != ""
	var space *coderSpace
	ws := r.workspace
	restarted := "" // why an interrupted coder could not go on in its worktree
	if cont != "" {
		info, serr := r.s.o.Store.Session(cont)
		if serr == nil && a.Role == store.SwarmCoder && r.spaces.repo && info.Workspace != r.workspace {
			// An interrupted coder goes on where it was: its worktree, with what it changed so
			// far, and its session. A worktree that is gone (a reboot cleared it) means a
			// new worktree and a new session: the log would describe files that are not there.
			sp, err := r.spaces.resume(ctx, prev.Worktree, prev.Base)
			if err != nil {
				restarted = "restarted in a new worktree: " + err.Error()
			}
			space, ws = sp, info.Workspace
		}
		switch text, done := finished(r.s.o.Store, cont); {
		case serr != nil:
			cont, continued = "", false
		case done:
			st.State, st.Result, st.Tokens = store.SwarmDone, text, tokensOf(r.s.o.Store, cont)
			switch {
			case space != nil: // it finished before the Tofu that ran it merged it back
				st.Result += "\n\n[merge: " + r.merge(ctx, i, a, space) + "]"
			case restarted != "": // merged and removed just before the end was recorded, or lost
				st.Result += "\n\n[merge: unknown: " + strings.TrimPrefix(restarted, "restarted in a new worktree: ") + "]"
			}
			return st, release
		case restarted != "":
			cont, continued, ws = "", false, r.workspace
		}
	}
	if a.Role == store.SwarmCoder && ws != "" && space == nil && (cont == "" || !r.spaces.repo) {
		// A new worktree in git; outside it, the coders' turn (also to continue a session).
		sp, err := r.spaces.forCoder(ctx, fmt.Sprintf("%s-%d-%d", shortID(r.callID), i, attempt))
		if err != nil {
			st.Error = err.Error()
			return st, release
		}
		space, ws, release = sp, sp.dir, sp.release
	}
	if cont == "" {
		id, err := r.child(ctx, i, attempt, ws)
		if err != nil {
			if space != nil {
				space.discard(context.WithoutCancel(ctx))
			}
			st.Error = err.Error()
			return st, release
		}
		cont = id
	}
	st.Session = cont
	if space != nil {
		st.Worktree, st.Base = space.root, space.base
	}
	running := st
	running.State = store.SwarmRunning
	if err := r.setStatus(running); err != nil {
		st.Error = err.Error()
		return st, release
	}
	req := session.Request{
		Session: cont, Model: a.Model, Approve: r.approve, Instructions: ro.instructions, ReadOnly: ro.readOnly,
		WrapProvider: r.lim.wrap,
	}
	if r.approve == string(permission.ModeAsk) {
		// The parent's card says which agent waits, and on what (its own card answers it);
		// under `tofu run` the parent's terminal asks for the agent.
		req.Prompt = func(ap store.Approval) {
			waiting := running
			waiting.State, waiting.Asking, waiting.Session = store.SwarmWaiting, ap.Subject, req.Session
			// The card then shows the agent running, not waiting; the approval is asked either
			// way, and the agent's next state, recorded when it ends, reports the store.
			_ = r.setStatus(waiting)
			if r.prompt != nil {
				ap.Session, ap.Agent = req.Session, agentLabel(a)
				r.prompt(ap)
			}
		}
		// Answered (in the window, at the terminal, or by the stop that expires it): the row
		// says running again rather than waiting for the rest of the agent's turn.
		unsub := r.s.o.Store.Subscribe(func(ev store.Event) {
			var ap store.Approval
			if ev.Type == store.EventApproval && ev.Decode(&ap) == nil && ap.Decision != "" {
				go r.answered(i, ev.Session) // not from the store's publish: it appends
			}
		})
		defer unsub()
	}
	end, err := r.s.o.Turns.Run(ctx, req)
	if err != nil && continued && ctx.Err() == nil {
		// The session cannot go on (a stop left its reply cut short): same attempt, new session.
		if req.Session, err = r.child(ctx, i, attempt, ws); err == nil {
			cont, st.Session = req.Session, req.Session
			end, err = r.s.o.Turns.Run(ctx, req)
		}
	}
	st.DurationMS = time.Since(start).Milliseconds()
	st.Tokens = tokensOf(r.s.o.Store, cont)
	text, done := finished(r.s.o.Store, cont)
	switch {
	case err != nil:
		st.Error = err.Error()
	case ctx.Err() != nil:
		st.State = store.SwarmStopped
	case end.Reason == store.EndDone && done:
		st.State, st.Result = store.SwarmDone, text
	default:
		st.Error = fmt.Sprintf("its turn ended: %s", end.Reason)
		if end.Err != nil {
			st.Error += ": " + end.Err.Error()
		}
	}
	if space != nil && space.branch != "" {
		switch {
		case st.State == store.SwarmDone:
			st.Result += "\n\n[merge: " + r.merge(ctx, i, a, space) + "]"
		case ctx.Err() != nil:
			// Stopped: the worktree stays, with the attempt's changes, for Continue.
		default:
			space.discard(context.WithoutCancel(ctx))
		}
	}
	if restarted != "" {
		if st.State == store.SwarmDone {
			st.Result += "\n\n[" + restarted + "]"
		} else if st.Error != "" {
			st.Error += " (" + restarted + ")"
		}
	}
	return st, release
}

// merge merges a finished coder's worktree back and records the report.
func (r *run) merge(ctx context.Context, i int, a store.SwarmAgent, space *coderSpace) string {
	report, err := space.done(ctx, a.Objective)
	if err != nil {
		report = "the merge failed: " + err.Error()
	}
	// The report is returned to the caller, which puts it in the swarm's result; the record
	// only adds it to the parent's log.
	_ = r.record(store.Swarm{Kind: store.SwarmKindMerge, Text: fmt.Sprintf("agent %d: %s", i, report)})
	return report
}

// child creates agent i's session for an attempt, with its brief as the user's message.
func (r *run) child(ctx context.Context, i, attempt int, workspace string) (string, error) {
	a, _ := r.get(i)
	title := fmt.Sprintf("%s %d: %s", a.Role, i, firstLine(a.Objective, 60))
	if attempt > 1 {
		title += fmt.Sprintf(" (attempt %d)", attempt)
	}
	info, err := r.s.o.Store.CreateSession(title)
	if err != nil {
		return "", err
	}
	if _, err := r.s.o.Store.UpdateSession(info.ID, func(s *store.SessionInfo) {
		s.Workspace, s.Purpose, s.Parent, s.ParentCall = workspace, store.PurposeSwarmAgent, r.parent, r.callID
	}); err != nil {
		return "", err
	}
	if _, err := r.s.o.Store.Append(info.ID, store.EventUser, store.UserMessage{Text: r.brief(ctx, i)}); err != nil {
		return "", err
	}
	return info.ID, nil
}

// brief is what agent i is told: its objective and context, the results it depends on (each
// compressed to its share of the inputs budget of the agent's model window), and how its
// result is used.
func (r *run) brief(ctx context.Context, i int) string {
	a, _ := r.get(i)
	bud := r.budgetFor(ctx, a.Model)
	var b strings.Builder
	fmt.Fprintf(&b, "You are agent %d (%s) of a team working on one task; other agents run in parallel.\n\nObjective: %s\n",
		i, a.Role, compress(a.Objective, bud.note()))
	if a.Context != "" {
		fmt.Fprintf(&b, "\nContext: %s\n", compress(a.Context, bud.note()))
	}
	if len(a.DependsOn) > 0 {
		b.WriteString("\nResults of the agents you build on:\n")
		per := bud.share(len(a.DependsOn))
		for _, d := range a.DependsOn {
			da, ds := r.get(d)
			fmt.Fprintf(&b, "\n### Agent %d (%s): %s\n%s\n", d, da.Role, firstLine(da.Objective, 100), compress(ds.Result, per))
		}
	}
	b.WriteString("\nShared artifacts: artifact_list, artifact_read, artifact_store. End with your result, complete and " +
		"self-contained: the agents after you and the master read only that.")
	return b.String()
}

// finished returns the final answer of a child session whose last turn ended done.
func finished(st *store.Store, id string) (string, bool) {
	evs, err := st.Events(id)
	if err != nil {
		return "", false
	}
	text, done := "", false
	for _, ev := range evs {
		switch ev.Type {
		case store.EventAssistant:
			var m store.AssistantMessage
			if ev.Decode(&m) == nil && strings.TrimSpace(m.Text) != "" {
				text = m.Text
			}
		case store.EventTurnEnd:
			var e store.TurnEnd
			done = ev.Decode(&e) == nil && e.Reason == store.EndDone
		case store.EventUser:
			done = false
		}
	}
	return strings.TrimSpace(text), done && strings.TrimSpace(text) != ""
}

// tokensOf sums the tokens a session's model calls reported.
func tokensOf(st *store.Store, id string) int {
	evs, err := st.Events(id)
	if err != nil {
		return 0
	}
	n := 0
	for _, ev := range evs {
		var u llm.Usage
		if ev.Type == store.EventUsage && ev.Decode(&u) == nil {
			n += u.InputTokens + u.OutputTokens
		}
	}
	return n
}

// agentLabel names an agent for a person: "agent 2 (coder: fix the parser)".
func agentLabel(a store.SwarmAgent) string {
	return fmt.Sprintf("agent %d (%s: %s)", a.Index, a.Role, firstLine(a.Objective, 50))
}

func shortID(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	if len(s) > 12 {
		s = s[len(s)-12:]
	}
	return s
}
