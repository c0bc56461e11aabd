package compact

import (
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

// Layout orders a request for prompt caches: one system message with the stable content first
// (the system prompt, then the instruction files; the tool specs travel in llm.Request.Tools,
// which every provider renders before or with the system prompt), then the conversation, and
// the changing facts (date, environment, reminders) last, in a trailing user message, so they
// never break the cached prefix. Empty parts are left out.
func Layout(system, instructions string, conv []llm.Message, facts string) []llm.Message {
	var stable []string
	for _, s := range []string{system, instructions} {
		if s = strings.TrimSpace(s); s != "" {
			stable = append(stable, s)
		}
	}
	out := make([]llm.Message, 0, len(conv)+2)
	if len(stable) > 0 {
		out = append(out, llm.Message{Role: llm.RoleSystem, Content: strings.Join(stable, "\n\n")})
	}
	out = append(out, conv...)
	if facts = strings.TrimSpace(facts); facts != "" {
		out = append(out, llm.Message{Role: llm.RoleUser, Content: "<system-reminder>\n" + facts + "\n</system-reminder>"})
	}
	return out
}

// Cache TTLs: the stable prefix (tools, system, instructions) lives an hour, the moving
// breakpoints five minutes (Anthropic's two TTLs; longer ones must come first).
const (
	PrefixTTL = "1h"
	TailTTL   = "5m"
)

// Breakpoints places Anthropic prompt-cache breakpoints on req: CachePrefix ("1h") after the
// tools and system prompt, then ("5m") on the last message before the L1 mark (the view up to
// it is fixed for a whole epoch), on the previous mark (so the request right after a move can
// still read the prefix cached before it), and on the last message (what the next request
// reads). At most 4 breakpoints in all, as Anthropic allows; providers
// without explicit caching ignore them.
func Breakpoints(req *llm.Request, st State) {
	req.CachePrefix = PrefixTTL
	req.CacheBreakpoints = nil
	n := len(req.Messages)
	if n == 0 {
		return
	}
	seen := map[int]bool{}
	add := func(i int) {
		if i < 0 || i >= n || seen[i] || req.Messages[i].Role == llm.RoleSystem {
			return
		}
		seen[i] = true
		req.CacheBreakpoints = append(req.CacheBreakpoints, llm.CacheBreakpoint{MessageIndex: i, TTL: TailTTL})
	}
	add(st.Prev - 1)
	add(st.Mark - 1)
	add(n - 1)
}

// Manager ties the layers to a session for the agent loop: it keeps the L1 State, writes the
// blobs placeholders name, and places the cache breakpoints. Safe for concurrent use.
type Manager struct {
	Config Config
	Store  BlobStore // where L0/L1 texts go; nil keeps no blobs (read_result cannot reopen them)
	// OnMove, if set, is called with the new State when the mark moves (record it as an
	// event so a resumed session rebuilds the same requests).
	OnMove func(State)

	mu    sync.Mutex
	state State
}

// NewManager returns a Manager that starts from st (the last recorded State, or zero).
func NewManager(cfg Config, store BlobStore, st State) *Manager {
	return &Manager{Config: cfg, Store: store, state: st}
}

// State returns the current L1 state.
func (m *Manager) State() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

// Rebase starts the L1 view over when the conversation it is built on changes under it: call
// it with the id of the L2 Compaction in force ("" for none) before Prepare. A new id resets
// the mark (a planned cache break); the same id does nothing.
func (m *Manager) Rebase(base string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state.Base != base {
		m.state = State{Epoch: m.state.Epoch, Base: base}
	}
}

// Prepare applies L1 to req.Messages (which include the system message) and places the cache
// breakpoints. A blob that cannot be written is reported; the request is still usable (its
// placeholder names a ref read_result will not find).
func (m *Manager) Prepare(req *llm.Request) (Report, error) {
	return m.prepare(req, m.Config, 0)
}

// PrepareLeft is Prepare for a caller that knows the session makes at most left more model
// calls, this one included (an agent turn's step limit): a move must pay for its cache rewrite
// within them. It is kept in State.Left, so the state a request was built from (Report.From)
// still rebuilds it. left <= 0 is Prepare.
func (m *Manager) PrepareLeft(req *llm.Request, left int) (Report, error) {
	return m.prepare(req, m.Config, max(left, 0))
}

func (m *Manager) prepare(req *llm.Request, cfg Config, left int) (Report, error) {
	m.mu.Lock()
	m.state.Left = left
	from := m.state
	rep := View(req, &m.state, cfg)
	st := m.state
	m.mu.Unlock()
	rep.From = from
	var err error
	if m.Store != nil {
		for _, b := range rep.Blobs {
			if e := m.Store.Put(b.Ref, b.Text); e != nil && err == nil {
				err = e
			}
		}
	}
	if rep.Moved && m.OnMove != nil {
		m.OnMove(st)
	}
	return rep, err
}

// View applies L1 to req.Messages (Build, from st, which it updates) and places the cache
// breakpoints: what Prepare does to a request, without keeping the blobs. A trace runs it again
// from the state a request was built from (Report.From) to rebuild the request.
func View(req *llm.Request, st *State, cfg Config) Report {
	msgs, rep := Build(req.Messages, st, cfg)
	req.Messages = msgs
	Breakpoints(req, *st)
	return rep
}

// Enter applies L0 to a tool's output as it enters the log (see Enter).
func (m *Manager) Enter(tool, text string) (string, error) {
	return Enter(m.Store, m.Config, tool, text)
}
