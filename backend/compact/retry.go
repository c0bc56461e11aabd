package compact

import (
	"context"

	"github.com/tofu-research/tofu/backend/llm"
)

// MaxOverflowRetries bounds L3: a request the provider refused as too long is rebuilt with
// Harder and retried at most this many times; then the overflow error is the turn's error.
const MaxOverflowRetries = 2

// Harder returns a more aggressive configuration for a retry after ErrContextOverflow. Each
// application halves the hot tail and the size thresholds again, moves the view at once
// (EpochTokens 0: the cache is lost anyway), compacts cold assistant messages, and makes L2
// keep only the in-flight turn and the newest one or two, within 10% of the usable window.
//
// The L3 contract (Retry implements it): on llm.ErrContextOverflow the caller rebuilds the
// request from the raw conversation with Harder(cfg) (and a copy of the State, so the session's
// normal view is not disturbed), and, when it has a summariser, first runs Summarize with
// trigger "overflow" on the second retry. At most MaxOverflowRetries retries per request;
// other errors are never retried here.
func Harder(c Config) Config {
	c.Level++
	half := func(n, floor int) int { return max(n/2, floor) }
	c.L0.Enabled = true
	c.L0.SearchChars = half(c.L0.SearchChars, 2_000)
	c.L0.CommandChars = half(c.L0.CommandChars, 2_000)
	c.L0.FetchChars = half(c.L0.FetchChars, 2_000)
	c.L0.MCPChars = half(c.L0.MCPChars, 2_000)
	c.L0.FileChars = half(c.L0.FileChars, 4_000)
	c.L0.DefaultChars = half(c.L0.DefaultChars, 2_000)
	c.L0.HeadChars = half(c.L0.HeadChars, 500)
	c.L0.TailChars = half(c.L0.TailChars, 300)
	c.L1.Enabled = true
	c.L1.HotResults = half(c.L1.HotResults, 1)
	c.L1.HotTokens = half(c.L1.HotTokens, 500)
	c.L1.FileHotResults = c.L1.HotResults
	c.L1.MinChars = half(c.L1.MinChars, 200)
	c.L1.EpochTokens, c.L1.CachePrice = 0, 0
	c.L1.Reasoning, c.L1.Images, c.L1.Assistant = true, true, true
	c.L1.AssistantMinChars = half(c.L1.AssistantMinChars, 200)
	c.L1.AssistantKeepChars = half(c.L1.AssistantKeepChars, 100)
	c.L1.ArgsMinChars = half(c.L1.ArgsMinChars, 200)
	c.L2.Enabled = true
	c.L2.PreserveRatio = min(c.L2.PreserveRatio, 0.10)
	c.L2.MaxPreserveTurns = min(c.L2.MaxPreserveTurns, 3-min(c.Level, 2))
	return c
}

// IsOverflow reports whether err is a provider's "the request does not fit the window".
func IsOverflow(err error) bool { return llm.KindOf(err) == llm.ErrContextOverflow }

// Retry runs attempt with cfg and, while it fails with a context overflow, again with
// Harder(cfg), at most MaxOverflowRetries more times. attempt gets the retry number (0 for the
// first try) and the configuration to build the request with. It returns attempt's last error.
func Retry(ctx context.Context, cfg Config, attempt func(ctx context.Context, retry int, cfg Config) error) error {
	err := attempt(ctx, 0, cfg)
	for r := 1; r <= MaxOverflowRetries && IsOverflow(err) && ctx.Err() == nil; r++ {
		cfg = Harder(cfg)
		err = attempt(ctx, r, cfg)
	}
	return err
}

// PrepareWith is Prepare with another configuration on a copy of the session's State (for an
// L3 retry): the session's own State does not move.
func (m *Manager) PrepareWith(req *llm.Request, cfg Config) (Report, error) {
	m.mu.Lock()
	st := m.state
	m.mu.Unlock()
	from := st
	rep := View(req, &st, cfg)
	rep.From = from
	if st.Shrunk != from.Shrunk {
		// The results this retry shrank stay shrunk: shown whole, they overflow again.
		m.mu.Lock()
		m.state.Shrunk = st.Shrunk
		m.mu.Unlock()
	}
	var err error
	if m.Store != nil {
		for _, b := range rep.Blobs {
			if e := m.Store.Put(b.Ref, b.Text); e != nil && err == nil {
				err = e
			}
		}
	}
	return rep, err
}
