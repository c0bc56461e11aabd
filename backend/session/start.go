package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/skills"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/checkpoint"
	"github.com/tofu-research/tofu/backend/tools/permission"
	"github.com/tofu-research/tofu/backend/tools/toolset"
)

// Request is one turn to run in a session. The session says what kind of turn it is: with a
// workspace, an agent turn (tools and approvals; planner → worker → critic when its mode is
// autonomous); a paper's session answers from the paper; any other is a plain conversation.
type Request struct {
	Session string
	Model   string // "": the main model of the settings
	// Approve is the approval mode over the rules and grants: ask (default), safe, all, never
	// (permission.Mode).
	Approve string
	// Prompt, when set, is called once an approval's asked event is durable (the terminal asks
	// then; the window needs nothing, the event shows the card). Answer with Runner.Approve.
	Prompt func(store.Approval)
	// Questions offers ask_human, answered with Runner.Answer (the window's question card).
	Questions bool
	// Asker, when set, offers ask_human and answers it instead (the terminal of tofu run).
	Asker tools.Asker
	Sink  agent.Sink // the live view of the replies (nil: none)
	// MaxSteps and MaxCostUSD bound the turn (0: agent.DefaultMaxSteps, no cost bound).
	MaxSteps   int
	MaxCostUSD float64
	// Context names the compaction policy ("": the settings'); ContextConfig, when set,
	// replaces it (ablations: tofu run --context-config).
	Context       string
	ContextConfig *compact.Config
	// Instructions are added to an agent turn's system prompt (a sub-agent's role).
	Instructions string
	// ReadOnly offers an agent turn only the tools that just observe (a reviewer).
	ReadOnly bool
	// WrapProvider, when set, wraps the provider the turn calls (a swarm's shared limiter).
	WrapProvider func(llm.Provider) llm.Provider
	// Started is called when the turn starts running; Ended once it has ended, its tools are
	// released and the session is free again (a new turn may start from Ended).
	Started func()
	Ended   func(agent.End)
	// Compact, when set, makes the turn a compaction the user asked for (/compact) instead of
	// a reply: the earlier turns are summarized with *Compact as the instruction
	// (agent.Agent.Compact).
	Compact *string
}

// plan is a built turn, ready to run.
type plan struct {
	agent   *agent.Agent
	turn    agent.Turn
	auto    *agent.AutoOptions // an autonomous run (nil: the tool loop, or one chat reply)
	cfg     config.Config
	release func() // frees the tools (background jobs) once the turn has ended
	// translate: translate-then-reason is on in the session (translate.go).
	translate bool
	// toolsOff: the tool families the conversation turned off; toolsOn: those it turned on,
	// offered without tool_search (families.go).
	toolsOff, toolsOn []store.ToolFamily
	// compact: the turn is the user's /compact with this instruction (nil: a reply).
	compact *string
}

// Start builds a turn and runs it in the background under ctx (cancel it with a cause, e.g.
// agent.ErrStoppedByUser, and the log says why it stopped; Stop does that). Whatever prevents
// the turn (a turn already running: ErrBusy, no model, nothing to answer, a workspace gone,
// unreadable settings) is returned before anything runs.
func (r *Runner) Start(ctx context.Context, req Request) (*Turn, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	t := &Turn{Session: req.Session, cancel: cancel, done: make(chan struct{}), sink: req.Sink, questions: req.Questions}
	r.mu.Lock()
	if r.running[req.Session] != nil {
		r.mu.Unlock()
		cancel(nil)
		return nil, ErrBusy
	}
	r.running[req.Session] = t
	r.wg.Add(1)
	r.mu.Unlock()
	free := func() {
		r.mu.Lock()
		delete(r.running, req.Session)
		r.mu.Unlock()
		cancel(nil)
		r.wg.Done()
	}
	if model := r.modelOf(req); strings.HasPrefix(model, AgentModelPrefix) {
		// The conversation's model is a coding agent (external.go).
		if req.Compact != nil {
			free()
			return nil, errors.New("this conversation's model is a coding agent, which keeps its own context: /compact is for Tofu's models")
		}
		et, err := r.buildExternal(req, model)
		if err != nil {
			free()
			return nil, err
		}
		go func() {
			if req.Started != nil {
				req.Started()
			}
			t.end = r.runExternal(ctx, et, req)
			free()
			if req.Ended != nil {
				req.Ended(t.end)
			}
			close(t.done)
		}()
		return t, nil
	}
	p, err := r.build(req, t)
	if err != nil {
		free()
		return nil, err
	}
	go func() {
		if req.Started != nil {
			req.Started()
		}
		t.end = r.run(ctx, p)
		p.release()
		// Free the session before saying so: a new turn started from Ended must not find it busy.
		free()
		if req.Ended != nil {
			req.Ended(t.end)
		}
		close(t.done)
	}()
	return t, nil
}

// modelOf is the model req asks for, or the settings' main model.
func (r *Runner) modelOf(req Request) string {
	if req.Model != "" {
		return req.Model
	}
	if cfg, err := r.o.Config(); err == nil {
		return cfg.Models.Main
	}
	return ""
}

// Run runs a turn to its end (Start, then Wait).
func (r *Runner) Run(ctx context.Context, req Request) (agent.End, error) {
	t, err := r.Start(ctx, req)
	if err != nil {
		return agent.End{}, err
	}
	return t.Wait(), nil
}

func (r *Runner) run(ctx context.Context, p *plan) agent.End {
	if p.turn.Context != nil {
		r.contextModels(ctx, p.cfg, &p.turn) // asks the provider: not before Start returns
	}
	if p.compact != nil {
		return p.agent.Compact(ctx, p.turn, *p.compact)
	}
	var userLang string
	if p.translate {
		userLang = r.translateIn(ctx, p)
	}
	var end agent.End
	if p.auto != nil {
		end = p.agent.RunAutonomous(ctx, p.turn, *p.auto)
	} else {
		end = p.agent.Run(ctx, p.turn)
	}
	if userLang != "" {
		r.translateOut(ctx, p, userLang, end)
	}
	return end
}

// build makes the turn req asks for from the settings and the session's log.
func (r *Runner) build(req Request, t *Turn) (*plan, error) {
	cfg, err := r.o.Config()
	if err != nil {
		return nil, err
	}
	model := req.Model
	if model == "" {
		model = cfg.Models.Main
	}
	if model == "" {
		return nil, errors.New("no model is selected: pick one in the model picker")
	}
	info, err := r.o.Store.Session(req.Session)
	if err != nil {
		return nil, err
	}
	j, err := r.journal(req.Session)
	if err != nil {
		return nil, err
	}
	agentMode := info.Workspace != "" && info.Paper == ""
	autonomous := agentMode && info.Mode == ModeAutonomous
	msgs := j.Messages()
	// An autonomous run goes on from its log wherever it stopped (a critic's review, …).
	switch {
	case req.Compact != nil && info.Paper != "":
		return nil, agent.ErrNoContextManager
	case req.Compact != nil && len(msgs) == 0:
		return nil, errors.New("there is nothing to compact: the conversation is empty")
	case req.Compact != nil:
	case len(msgs) == 0 || (msgs[len(msgs)-1].Role != llm.RoleUser && !(agentMode && msgs[len(msgs)-1].Role == llm.RoleTool) && !autonomous):
		return nil, errors.New("there is no message to answer")
	}
	provider, _, err := r.o.Provider()
	if err != nil {
		return nil, err
	}
	if req.WrapProvider != nil {
		provider = req.WrapProvider(provider)
	}
	if info.RecallOff {
		cfg.MemoryRecallOff = true // this conversation's switch (Enhance), over the settings'
	}
	if info.Bridge != "" && slices.Contains(info.ToolsOff, store.FamilyWeb) {
		// A chat bridge's conversation reaches the web only when the user turned it on there:
		// its commands get no proxy either (docs/BRIDGES.md).
		cfg.WebAccess = false
	}
	p := &plan{agent: &agent.Agent{Log: r.o.Store, Provider: provider}, cfg: cfg, release: func() {}, translate: info.Translate,
		toolsOff: info.ToolsOff, toolsOn: info.ToolsOn, compact: req.Compact}
	p.turn = agent.Turn{
		Session: req.Session, Model: model, System: assets.Prompt("chat"), Journal: j, Sink: req.Sink,
		Price: r.Price, MaxSteps: req.MaxSteps, MaxCostUSD: req.MaxCostUSD, Thinking: info.Thinking,
	}
	switch {
	case agentMode:
		if err := r.equip(p, req, t, info.Workspace, j.Events(), autonomous); err != nil {
			return nil, err
		}
	case info.Paper == "":
		// A plain conversation: compacted like an agent's (L1 on every request, L2 near the
		// window), without tools.
		if p.turn.Context, err = r.contextManager(cfg, j.Events(), req.Context, req.ContextConfig); err != nil {
			return nil, err
		}
	case r.o.Augment != nil:
		withSystem := append([]llm.Message{{Role: llm.RoleSystem, Content: p.turn.System}}, msgs...)
		augmented, err := r.o.Augment(req.Session, model, withSystem)
		if err != nil {
			return nil, err
		}
		// The passages were chosen (and logged) for this question: the turn sends exactly that.
		p.turn.System = ""
		p.turn.Augment = func([]llm.Message) ([]llm.Message, error) { return augmented, nil }
	}
	if _, err := r.o.Store.UpdateSession(req.Session, func(i *store.SessionInfo) { i.Model = model }); err != nil {
		p.release()
		return nil, err
	}
	return p, nil
}

// equip makes p an agent turn in workspace: the agent prompt with the instruction files, the
// toolset with the runner's tool families, the approval gate, the context manager.
func (r *Runner) equip(p *plan, req Request, t *Turn, workspace string, events []store.Event, autonomous bool) error {
	if _, err := ResolveWorkspace(workspace); err != nil {
		return fmt.Errorf("the workspace is gone (%v): choose another one", err)
	}
	// The session's and the workspace's grants come back from the log (a restart, Continue).
	r.o.Approvals.Restore(req.Session, workspace, events)
	approve := req.Approve
	if approve == "" {
		approve = string(permission.ModeAsk)
	}
	gate, err := NewGate(r.o.Approvals, req.Session, workspace, approve, req.Prompt)
	if err != nil {
		return err
	}
	ctxm, err := r.contextManager(p.cfg, events, req.Context, req.ContextConfig)
	if err != nil {
		return err
	}
	opts := toolset.Options{Results: r.results(), Active: agent.UsedTools(events)}
	opts.Coding.Sandbox, opts.Coding.Network = turnSandbox(p.cfg, r.o.SkillsDir), p.cfg.WebAccess
	switch {
	case req.Asker != nil:
		opts.Asker = req.Asker
	case req.Questions:
		opts.Asker = t
	}
	ts := toolset.New(opts)
	releases := []func(){ts.Close}
	p.release = func() {
		for i := len(releases) - 1; i >= 0; i-- {
			releases[i]()
		}
	}
	spec := Spec{Session: req.Session, Workspace: workspace, Events: events, Model: p.turn.Model, Approve: approve, Prompt: req.Prompt, Asker: opts.Asker}
	for _, family := range r.o.Tools {
		release, err := family(ts.Registry, spec)
		if err != nil {
			p.release()
			return fmt.Errorf("equip the turn's tools: %w", err)
		}
		if release != nil {
			releases = append(releases, release)
		}
	}
	// The families' rare tools wait for tool_search too, unless the session used them.
	ts.Activate(opts.Active...)
	system := assets.Prompt("agent")
	if req.Instructions != "" {
		system += "\n\n" + req.Instructions
	}
	if r.o.Memory != nil && !slices.Contains(p.toolsOff, store.FamilyMemory) {
		for _, tool := range r.o.Memory.Tools(workspace) {
			if err := ts.Registry.Add(tool); err != nil {
				p.release()
				return fmt.Errorf("equip the turn's tools: %w", err)
			}
		}
		ts.Registry.DeferFamily("search and save lessons", memory.ToolNames...)
		ts.Registry.Activate(agent.UsedTools(events)...)
		system += "\n" + assets.Prompt("memory")
	}
	if r.o.History != nil {
		for _, tool := range r.o.History.Tools() {
			if err := ts.Registry.Add(tool); err != nil {
				p.release()
				return fmt.Errorf("equip the turn's tools: %w", err)
			}
		}
		ts.Registry.DeferFamily("find and read past conversations", history.ToolNames...)
		ts.Registry.Activate(agent.UsedTools(events)...)
	}
	// Skills: names and descriptions in the prompt, the body through the skill tool on use.
	if found := skills.Discover(workspace, r.o.SkillsDir); skills.Prompt(found) != "" {
		if err := ts.Registry.Add(skills.Tool(found, r.o.SkillsDir)); err != nil {
			p.release()
			return fmt.Errorf("equip the turn's tools: %w", err)
		}
		system += "\n\n" + skills.Prompt(found)
	}
	// The families this conversation turned off go last, whoever added their tools.
	dropFamilies(ts.Registry, p.toolsOff)
	offerFamilies(ts.Registry, append(slices.Clone(p.toolsOn), askedFamilies(events)...))
	instr := agent.Instructions(workspace, r.o.ConfigDir, gate.Secret)
	if instr != "" {
		system += "\n\n" + instr
	}
	at := &p.turn
	at.Workspace, at.System, at.Instructions = workspace, system, instr
	at.Tools, at.Policy, at.Approver, at.Context = ts, gate, gate.Approver(), ctxm
	at.Checkpoints = &checkpoint.Recorder{Blobs: r.o.Store, Workspace: workspace}
	if req.ReadOnly {
		at.Tools = readOnly{ts.Registry}
	}
	if autonomous {
		p.auto = &agent.AutoOptions{Instructions: instr}
	}
	if err := r.tellEnvironment(req.Session, workspace, events, p.turn.Journal); err != nil {
		p.release()
		return err
	}
	if err := r.recallMemory(p.cfg, req.Session, workspace, p.turn.Journal); err != nil {
		p.release()
		return err
	}
	return nil
}

// tellEnvironment records the environment block before a session's first agent turn, and
// what changed in it before a later one (see environment.go). It speaks only after a user
// message (the text rides on it); a Continue after tool results waits for the next one.
func (r *Runner) tellEnvironment(session, workspace string, events []store.Event, j *agent.Journal) error {
	msgs := j.Messages()
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleUser {
		return nil
	}
	now := time.Now
	if r.o.Now != nil {
		now = r.o.Now
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	prev := lastEnvironment(events)
	cur, facts := probeEnvironment(ctx, workspace, now(), prev == nil, r.versions)
	env, ok := environmentReminder(prev, cur, facts)
	if !ok {
		return nil
	}
	if _, err := r.o.Store.Append(session, store.EventEnvironment, env); err != nil {
		return fmt.Errorf("record the environment: %w", err)
	}
	return nil
}
