// Package session is the turn runner: it builds a turn from the settings and the session
// (prompt, instruction files, tools, context manager, models, limits), runs it, and owns the
// turns in flight. The window, `tofu run` and `tofu chat` start turns through it alone.
package session

import (
	"errors"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/agent"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/permission"
)

// ErrBusy means a turn already runs in the session.
var ErrBusy = errors.New("a reply is still streaming in this conversation: stop it first")

// Options are the runner's dependencies.
type Options struct {
	Store *store.Store
	// Provider is the model provider for the current settings, with a key that changes when
	// the configuration does (context windows are cached per key).
	Provider func() (llm.Provider, string, error)
	// Config reads the settings (models, context policy, prices) each time a turn starts.
	Config func() (config.Config, error)
	// Approvals decides tool calls and holds the approvals turns wait on (nil: a service
	// without rules).
	Approvals *permission.Service
	// ConfigDir holds the user's global AGENTS.md ("" : none).
	ConfigDir string
	// Tools add tool families to every agent turn's toolset (browser, desktop, MCP, memory,
	// sub-agents): each is called with the turn's registry and returns what releases them
	// when the turn ends.
	Tools []ToolFamily
	// Augment, when set, gives a paper session's turn its request (the retrieved passages are
	// put in, and logged, by the paper library).
	Augment func(sessionID, model string, msgs []llm.Message) ([]llm.Message, error)
	// History, when set, gives agent turns conversation_search, conversation_list and conversation_read
	// (deferred), to find and read a conversation the user refers to.
	History *history.Index
	// SkillsDir is the global skills folder ("": only the workspace's); see backend/skills.
	SkillsDir string
	// Memory, when set, gives agent turns the memory tools (deferred) and recalls relevant
	// records before each turn (memory.go).
	Memory *memory.Store
	// Now is the clock the environment's date is read from (nil: time.Now).
	Now func() time.Time
	// Agents run the coding agents a conversation may have as its model ("agent:claude";
	// external.go). Nil: none.
	Agents *ExternalAgents
	// Switched, when set, is the main model's replacement the model status found (nil:
	// none): Send answers with it and records it as a startup fallback (send.go).
	Switched func() *store.Fallback
}

// ToolFamily adds tools to the registry of a turn on spec (tools.Family: the families live
// with their tools, below the runner).
type ToolFamily = tools.Family

// Spec is what a tool family may need to know of the turn it equips (tools.Spec).
type Spec = tools.Spec

// Runner builds and runs turns and keeps the set of running ones. It is safe for concurrent
// use; there is one per process.
type Runner struct {
	o Options

	mu       sync.Mutex
	running  map[string]*Turn
	journals map[string]*agent.Journal // sessions' logs kept in memory between turns
	wg       sync.WaitGroup
	// windows caches the context window of each model for the provider configuration windowsOf.
	windows   map[string]int
	windowsOf string
	// versions caches the toolchain versions the environment block names (shared by the process).
	versions *toolVersions
	// switchNoted: the sessions whose startup fallback is recorded (send.go).
	switchNoted map[string]bool
}

// New returns a runner on o.
func New(o Options) *Runner {
	if o.Approvals == nil {
		o.Approvals = permission.NewService(nil)
	}
	o.Approvals.SetCommands(func() (permission.Boundary, string) {
		var cfg config.Config
		if o.Config != nil {
			cfg, _ = o.Config() // unreadable settings: the default, the sandbox
		}
		return CommandBoundary(cfg)
	}, shownSkills(o.SkillsDir)...)
	return &Runner{o: o, running: map[string]*Turn{}, journals: map[string]*agent.Journal{}, windows: map[string]int{},
		versions: processVersions(), switchNoted: map[string]bool{}}
}

// Price is a call's cost from the settings' price table (0 for unlisted models).
func (r *Runner) Price(model string, u llm.Usage) float64 {
	cfg, err := r.o.Config()
	if err != nil {
		return 0
	}
	return Price(cfg, model, u)
}

// Price is a call's cost from cfg's price table (0 for unlisted models).
func Price(cfg config.Config, model string, u llm.Usage) float64 {
	p, ok := cfg.Prices[model]
	if !ok {
		return 0
	}
	return p.Cost(u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens)
}

// maxJournals bounds the sessions whose logs stay in memory between turns; past it one not
// running is dropped (its next turn reads its log again).
const maxJournals = 16

// journal is the in-memory log of session, kept for its next turns. The caller holds the
// session's running slot, so no other turn uses it meanwhile.
func (r *Runner) journal(session string) (*agent.Journal, error) {
	r.mu.Lock()
	j := r.journals[session]
	r.mu.Unlock()
	if j != nil {
		return j, j.Sync()
	}
	j, err := agent.OpenJournal(r.o.Store, session)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if len(r.journals) >= maxJournals {
		for id := range r.journals {
			if r.running[id] == nil {
				delete(r.journals, id)
				break
			}
		}
	}
	r.journals[session] = j
	r.mu.Unlock()
	return j, nil
}

// Forget drops what the runner keeps of a session (it was deleted).
func (r *Runner) Forget(session string) {
	r.mu.Lock()
	delete(r.journals, session)
	r.mu.Unlock()
	r.o.Approvals.Forget(session)
}
