package swarm

import (
	"context"
	_ "embed"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// Turns is what the swarm needs of the turn runner: a sub-agent is a child session whose turns
// run like any other.
type Turns interface {
	Run(ctx context.Context, req session.Request) (agent.End, error)
	// Window is the context window Tofu runs model with (0: unknown); the swarm's budgets are
	// shares of it (budget.go).
	Window(ctx context.Context, model string) int
}

// Options are the swarm's dependencies and limits.
type Options struct {
	Store  *store.Store
	Turns  Turns
	Config func() (config.Config, error)
	// Parallel bounds the agents running at once (0: from the provider of the main model, see
	// defaultParallel; the settings' swarm_parallel overrides it).
	Parallel int
	// MaxAttempts bounds the runs of one agent (0: 3, the first and two retries).
	MaxAttempts int
	// MaxRounds bounds the master rounds (0: 3); the last one must write the synthesis.
	MaxRounds int
	// Backoff is the first wait after a 429 that says no Retry-After (0: 250 ms); it doubles
	// while the provider keeps refusing.
	Backoff time.Duration
}

// Swarm runs spawn_agents calls. One per process: its limiters are shared by every swarm, so
// two swarms on one provider back off together.
type Swarm struct {
	o Options

	mu       sync.Mutex
	limiters map[string]*limiter // by provider
}

// New returns a swarm on o.
func New(o Options) *Swarm {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 3
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = 3
	}
	return &Swarm{o: o, limiters: map[string]*limiter{}}
}

//go:embed spawn_agents.md
var spawnDoc string

// SpawnName is the tool's name.
const SpawnName = "spawn_agents"

// Deferred are the swarm's tools in a session that is not itself a sub-agent: found with
// tool_search (or called by name), they cost nothing in requests until used.
var Deferred = []string{SpawnName, "artifact_store", "artifact_read", "artifact_list"}

type spawnParams struct {
	Agents []AgentSpec `json:"agents"`
}

// resumableTool marks spawn_agents as resuming from its own events (agent.Resumer).
type resumableTool struct{ tools.Tool }

func (resumableTool) Resumable() bool { return true }

// Family is the swarm as a session.ToolFamily: spawn_agents and the artifact tools in a
// session of the user's (deferred), the artifact tools alone in a sub-agent's (no swarm
// starts another: one level of agents under one master).
func (s *Swarm) Family(reg *tools.Registry, spec session.Spec) (func(), error) {
	info, err := s.o.Store.Session(spec.Session)
	if err != nil {
		return nil, err
	}
	if info.Purpose == store.PurposeSwarmAgent {
		for _, t := range artifactTools(s.o.Store, info.Parent, spec.Session) {
			if err := reg.Add(t); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	spawn := resumableTool{tools.Define(tools.Def[spawnParams]{
		Name:        SpawnName,
		Description: spawnDoc,
		Purpose:     "run sub-agents in parallel",
		Example:     `{"agents":[{"objective":"List the public API of pkg/a","role":"researcher"},{"objective":"Write the summary","role":"writer","depends_on":[0]}]}`,
		Run: func(ctx context.Context, call tools.Call, p spawnParams) (tools.Result, error) {
			return s.spawn(ctx, spec, call, p.Agents)
		},
	})}
	all := append([]tools.Tool{spawn}, artifactTools(s.o.Store, spec.Session, spec.Session)...)
	for _, t := range all {
		if err := reg.Add(t); err != nil {
			return nil, err
		}
	}
	reg.Defer(SpawnName)
	reg.DeferFamily("files shared between sub-agents", Deferred[1:]...)
	return nil, nil
}

// limiter is the shared limiter of the provider that serves model.
func (s *Swarm) limiter(cfg config.Config, model string, parallel int) *limiter {
	key := providerOf(cfg, model).Name
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.limiters[key]
	if l == nil || cap(l.slots) != parallel {
		l = newLimiter(parallel, s.o.Backoff)
		s.limiters[key] = l
	}
	return l
}

// parallel is the number of agents a swarm runs at once.
func (s *Swarm) parallel(cfg config.Config, model string) int {
	switch {
	case s.o.Parallel > 0:
		return s.o.Parallel
	case cfg.SwarmParallel > 0:
		return cfg.SwarmParallel
	}
	return defaultParallel(providerOf(cfg, model), os.Getenv("OLLAMA_NUM_PARALLEL"))
}

// defaultParallel: a local Ollama runs one agent fewer than it has slots (OLLAMA_NUM_PARALLEL,
// as the server reads it from the user's environment; 1 when unset, the default of current
// releases). Two agents on one slot take turns in it, and each request of one evicts the
// other's KV cache, so every step would prefill its whole conversation again; and with
// OLLAMA_MULTIUSER_CACHE a request that does not extend its slot to the last token is copied
// into the least recently used free slot, so the agents need a spare one: the parent's, idle
// while they run (docs/CONTEXT.md, "On a local model"). A remote Ollama four; a hosted API
// eight, below common per-key concurrency limits.
func defaultParallel(p config.Provider, slots string) int {
	switch p.Type {
	case config.TypeOllama, "":
		if p.Type == "" || isLocal(p.BaseURL) {
			if n, err := strconv.Atoi(strings.TrimSpace(slots)); err == nil && n > 1 {
				return min(n-1, 64)
			}
			return 1
		}
		return 4
	}
	return 8
}

func isLocal(base string) bool {
	if base == "" {
		return true // OLLAMA_HOST or the default 127.0.0.1:11434
	}
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// providerOf is the provider a model reference names ("provider/model", else the first).
func providerOf(cfg config.Config, model string) config.Provider {
	if name, _, ok := strings.Cut(model, "/"); ok {
		for _, p := range cfg.Providers {
			if p.Name == name {
				return p
			}
		}
	}
	if len(cfg.Providers) > 0 {
		return cfg.Providers[0]
	}
	return config.Provider{}
}

// describe is a one-line summary of a finished swarm.
func describe(agents []store.SwarmAgent, status []store.SwarmStatus, rounds int) string {
	count := map[store.SwarmState]int{}
	for _, st := range status {
		count[st.State]++
	}
	s := fmt.Sprintf("[swarm: %d agents, %d done", len(agents), count[store.SwarmDone])
	if n := count[store.SwarmFailed]; n > 0 {
		s += fmt.Sprintf(", %d failed", n)
	}
	if n := count[store.SwarmSkipped]; n > 0 {
		s += fmt.Sprintf(", %d skipped", n)
	}
	return s + fmt.Sprintf(", %d master round(s)]", rounds)
}
