package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/swarm"
	"github.com/tofu-research/tofu/backend/tools"
)

// SwarmOptions tune `tofu eval swarm`.
type SwarmOptions struct {
	Parallel int           // agents at once (0: 8)
	Delay    time.Duration // the scripted model's answer time (0: 300 ms)
	// Storm is how long the provider refuses every agent call with a 429 in the storm run,
	// from the first one (0: 2 s).
	Storm time.Duration
}

// SwarmReport is what `tofu eval swarm` measures on a 12-agent graph with fan-out and fan-in,
// answered by the scripted model after a fixed delay: how close the makespan comes to the
// critical path (the longest chain of agent durations, which no scheduler can beat), the size
// of the results injected into dependents against their budget, and a run under a 429 storm.
type SwarmReport struct {
	Agents         int     `json:"agents"`
	Parallel       int     `json:"parallel"`
	DelayMS        int64   `json:"delay_ms"`
	MakespanMS     int64   `json:"makespan_ms"`      // graph recorded → last agent finished
	CriticalPathMS int64   `json:"critical_path_ms"` // longest chain of measured agent durations
	Ratio          float64 `json:"ratio"`            // makespan / critical path (goal ≤ 1.1)
	// IdealCriticalPathMS is the chain's length in model delays alone (4 levels × delay).
	IdealCriticalPathMS int64 `json:"ideal_critical_path_ms"`
	// Window is the agents' model window; ResultBudget the share of it each of the writer's
	// six inputs gets (swarm.ResultShare), and MaxInjectedTokens the largest of them as the
	// writer's brief carried it.
	Window            int   `json:"window_tokens"`
	ResultBudget      int   `json:"result_budget_tokens"`
	MaxInjectedTokens int   `json:"max_injected_tokens"`
	ResultTokens      int   `json:"result_tokens"` // each agent's full result
	Storm             Storm `json:"storm"`
}

// Storm is the run under a 429 storm.
type Storm struct {
	StormMS    int64 `json:"storm_ms"`       // how long the provider refused every call
	Refused    int   `json:"refused_429"`    // calls the provider refused
	Waits      int   `json:"backoff_waits"`  // calls that waited on the shared backoff
	Done       int   `json:"agents_done"`    // agents that finished
	Retried    int   `json:"agents_retried"` // agents that needed a second attempt (gave up once)
	MakespanMS int64 `json:"makespan_ms"`
}

// swarmGraph is 12 agents: a planner, six agents on its plan, four on four of those, and a
// writer on the last six.
const swarmGraph = `{"agents":[
{"objective":"plan","role":"planner"},
{"objective":"a1","role":"researcher","depends_on":[0]},
{"objective":"a2","role":"researcher","depends_on":[0]},
{"objective":"a3","role":"researcher","depends_on":[0]},
{"objective":"a4","role":"researcher","depends_on":[0]},
{"objective":"b1","role":"analyst","depends_on":[0]},
{"objective":"b2","role":"analyst","depends_on":[0]},
{"objective":"c1","role":"analyst","depends_on":[1]},
{"objective":"c2","role":"analyst","depends_on":[2]},
{"objective":"c3","role":"analyst","depends_on":[3]},
{"objective":"c4","role":"analyst","depends_on":[4]},
{"objective":"write","role":"writer","depends_on":[5,6,7,8,9,10]}]}`

const swarmLevels = 4

// writerInputs are the agents the writer (agent 11) depends on.
var writerInputs = []int{5, 6, 7, 8, 9, 10}

// swarmWindow is the context window the eval's model runs with.
const swarmWindow = 32768

// EvalSwarm runs the graph twice on the scripted model (calm, then a 429 storm).
func EvalSwarm(ctx context.Context, o SwarmOptions) (SwarmReport, error) {
	if o.Parallel <= 0 {
		o.Parallel = 8
	}
	if o.Delay <= 0 {
		o.Delay = 300 * time.Millisecond
	}
	if o.Storm <= 0 {
		o.Storm = 2 * time.Second
	}
	rep := SwarmReport{Parallel: o.Parallel, DelayMS: o.Delay.Milliseconds(), Window: swarmWindow,
		ResultBudget:        swarm.ResultShare(swarmWindow, len(writerInputs)),
		IdealCriticalPathMS: swarmLevels * o.Delay.Milliseconds()}
	calm, err := swarmRun(ctx, o, 0)
	if err != nil {
		return rep, err
	}
	rep.Agents, rep.MakespanMS, rep.CriticalPathMS = calm.agents, calm.makespan.Milliseconds(), calm.critical.Milliseconds()
	rep.Ratio = float64(calm.makespan) / float64(max(calm.critical, 1))
	rep.MaxInjectedTokens, rep.ResultTokens = calm.injected, calm.resultTokens
	storm, err := swarmRun(ctx, o, o.Storm)
	if err != nil {
		return rep, err
	}
	rep.Storm = Storm{StormMS: o.Storm.Milliseconds(), Refused: storm.refused, Waits: storm.waits, Done: storm.done, Retried: storm.retried, MakespanMS: storm.makespan.Milliseconds()}
	return rep, nil
}

type swarmOutcome struct {
	agents, done, retried, refused, waits, injected, resultTokens int
	makespan, critical                                            time.Duration
}

var agentLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^You are agent (\d+) `) })

// swarmResult is what every agent answers: long enough that its dependents read it compressed.
func swarmResult(i int) string {
	return fmt.Sprintf("Agent %d found this.\n\n```go\nfunc f%d() int { return %d }\n```\n\n%s", i, i, i, scripted.LongText(1500))
}

// swarmRun runs the graph once in a fresh store, refusing every agent call during storm from
// the first one.
func swarmRun(ctx context.Context, o SwarmOptions, storm time.Duration) (swarmOutcome, error) {
	var out swarmOutcome
	dir, err := os.MkdirTemp("", "tofu-eval-swarm-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(dir + "/db")
	if err != nil {
		return out, err
	}
	defer st.Close()
	model := scripted.DemoModel()
	model.ContextLength = swarmWindow // the writer reads six results
	srv, err := scripted.Listen("127.0.0.1:0", model)
	if err != nil {
		return out, err
	}
	defer srv.Close()
	var mu sync.Mutex
	refused, writerBrief := 0, ""
	var stormEnds time.Time
	srv.DefaultFuncContext(func(ctx context.Context, req llm.Request) scripted.Reply {
		first := ""
		for _, m := range req.Messages {
			if m.Role == llm.RoleUser {
				first = m.Content
				break
			}
		}
		if g := agentLine().FindStringSubmatch(first); g != nil {
			mu.Lock()
			if stormEnds.IsZero() {
				stormEnds = time.Now().Add(storm)
			}
			refuse := time.Now().Before(stormEnds)
			if refuse {
				refused++
			}
			mu.Unlock()
			if refuse {
				return scripted.Reply{Status: 429, Error: "rate limited"}
			}
			select {
			case <-time.After(o.Delay):
			case <-ctx.Done():
			}
			n, _ := strconv.Atoi(g[1])
			if n == 11 {
				mu.Lock()
				writerBrief = first
				mu.Unlock()
			}
			return scripted.Reply{Text: swarmResult(n), Chunks: 1}
		}
		if strings.HasPrefix(scripted.LastUser(req), "You are the master") {
			return scripted.Reply{Text: "The synthesis.", Chunks: 1}
		}
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				return scripted.Reply{Text: "done"}
			}
		}
		return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "call_swarm", Name: swarm.SpawnName, Arguments: json.RawMessage(swarmGraph)}}}
	})
	provider := ollama.New(srv.URL)
	cfg := config.Config{Models: config.Models{Main: scripted.DemoModelName}}
	var sw *swarm.Swarm
	runner := session.New(session.Options{
		Store:    st,
		Provider: func() (llm.Provider, string, error) { return provider, srv.URL, nil },
		Config:   func() (config.Config, error) { return cfg, nil },
		Tools: []session.ToolFamily{func(reg *tools.Registry, spec session.Spec) (func(), error) {
			return sw.Family(reg, spec)
		}},
	})
	defer runner.Shutdown()
	sw = swarm.New(swarm.Options{Store: st, Turns: runner, Config: func() (config.Config, error) { return cfg, nil },
		Parallel: o.Parallel, Backoff: 50 * time.Millisecond})
	ws := dir + "/ws"
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return out, err
	}
	sent, err := runner.Send(ctx, session.Message{Title: "eval swarm", Text: "Run the team.",
		Setup: func(i *store.SessionInfo) { i.Workspace = ws }}, session.Request{Approve: "all"})
	if err != nil {
		return out, err
	}
	end := sent.Turn.Wait()
	if end.Reason != store.EndDone {
		return out, fmt.Errorf("the eval's turn ended %s: %v", end.Reason, end.Err)
	}
	out, err = measureSwarm(st, sent.Session, sw, refused)
	mu.Lock()
	out.injected = maxInjected(writerBrief)
	mu.Unlock()
	return out, err
}

// injectedResult finds the dependency results in a brief: each after its "### Agent" heading,
// up to the next heading or the closing line about artifacts.
var injectedResult = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)### Agent \d+ \([a-z]+\): [^\n]*\n(.*?)\n(?:\n### Agent |\nShared artifacts:)`)
})

// maxInjected is the o200k tokens of the largest dependency result in a brief.
func maxInjected(brief string) int {
	n := 0
	for rest := brief; ; {
		loc := injectedResult().FindStringSubmatchIndex(rest)
		if loc == nil {
			return n
		}
		n = max(n, tokens.Count(rest[loc[2]:loc[3]]))
		rest = rest[loc[3]:]
	}
}

// measureSwarm reads the swarm's events: the makespan from the first start to the last finish,
// each agent's duration for the critical path, retries, and the injected results' sizes.
func measureSwarm(st *store.Store, parent string, sw *swarm.Swarm, refused int) (swarmOutcome, error) {
	out := swarmOutcome{refused: refused}
	evs, err := st.Events(parent)
	if err != nil {
		return out, err
	}
	var agents []store.SwarmAgent
	var first, last time.Time
	took := map[int]time.Duration{}
	for _, ev := range evs {
		var s store.Swarm
		if ev.Type != store.EventSwarm || ev.Decode(&s) != nil {
			continue
		}
		switch {
		case s.Kind == store.SwarmKindGraph:
			agents = append(agents, s.Agents...)
			if first.IsZero() {
				first = ev.Time
			}
		case s.Kind == store.SwarmKindAgent && s.Agent.State == store.SwarmRunning:
			if s.Agent.Attempt > 1 {
				out.retried++
			}
		case s.Kind == store.SwarmKindAgent && s.Agent.State == store.SwarmDone:
			last = ev.Time
			out.done++
			took[s.Agent.Index] = time.Duration(s.Agent.DurationMS) * time.Millisecond
		}
	}
	out.agents = len(agents)
	out.makespan = last.Sub(first)
	out.critical = swarm.CriticalPath(agents, func(i int) time.Duration { return took[i] })
	out.resultTokens = tokens.Count(swarmResult(10))
	out.waits = sw.BackoffWaits()
	return out, nil
}

// WriteJSON writes the report as JSON.
func (r SwarmReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for a person.
func (r SwarmReport) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "swarm of %d agents (fan-out/fan-in, %d levels), parallel %d, model delay %d ms\n"+
		"  makespan        %6d ms\n  critical path   %6d ms (ideal %d ms)\n  ratio           %6.3f (goal ≤ 1.1)\n"+
		"  injected result %6d tokens of %d budget (each of the writer's six inputs in a %d-token window; full result %d)\n"+
		"429 storm of %d ms: %d calls refused, %d waits on the shared backoff, %d/%d agents done, %d retried, makespan %d ms\n",
		r.Agents, swarmLevels, r.Parallel, r.DelayMS, r.MakespanMS, r.CriticalPathMS, r.IdealCriticalPathMS, r.Ratio,
		r.MaxInjectedTokens, r.ResultBudget, r.Window, r.ResultTokens,
		r.Storm.StormMS, r.Storm.Refused, r.Storm.Waits, r.Storm.Done, r.Agents, r.Storm.Retried, r.Storm.MakespanMS)
	return err
}
