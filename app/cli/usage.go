package cli

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/llm"
)

// usageTotal adds up the usage events of a run for the summary line `tofu run` ends with.
type usageTotal struct {
	calls, in, out, cached int
	cost                   float64
	// cacheReported: some call's provider reports its cache, so cached is a figure (0 is
	// "nothing from the cache"), not an unknown.
	cacheReported bool
}

func (u *usageTotal) add(x llm.Usage) {
	u.calls++
	u.in += x.InputTokens
	u.out += x.OutputTokens
	u.cached += x.CacheReadTokens
	u.cost += x.CostUSD
	u.cacheReported = u.cacheReported || x.CacheReported || x.CacheReadTokens > 0
}

// runSummary is the last line of `tofu run --json`: how the run ended and what it cost, as
// the text mode's last lines say it. CachedTokens is absent when no provider reported its
// cache.
type runSummary struct {
	Type         string  `json:"type"` // "summary"
	Session      string  `json:"session"`
	Reason       string  `json:"reason"`
	Steps        int     `json:"steps"`
	Calls        int     `json:"model_calls"`
	InputTokens  int     `json:"input_tokens"`
	CachedTokens *int    `json:"cached_tokens,omitempty"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
}

func (u usageTotal) summary(session string, reason string, steps int) runSummary {
	s := runSummary{Type: "summary", Session: session, Reason: reason, Steps: steps,
		Calls: u.calls, InputTokens: u.in, OutputTokens: u.out, CostUSD: u.cost}
	if u.cacheReported {
		s.CachedTokens = &u.cached
	}
	return s
}

// line is the summary: calls, tokens in (with the share read from the provider's cache) and
// out, and the cost when the models are priced in the settings. "" when no call was made.
func (u usageTotal) line() string {
	if u.calls == 0 {
		return ""
	}
	s := fmt.Sprintf("(%d model call(s): %s tokens in", u.calls, tokenCount(u.in))
	switch {
	case !u.cacheReported:
		s += " (caching not reported by the provider)"
	case u.in > 0:
		s += fmt.Sprintf(" (%d%% cached)", u.cached*100/u.in)
	}
	s += fmt.Sprintf(", %s out", tokenCount(u.out))
	if u.cost > 0 {
		s += fmt.Sprintf(", $%.4f", u.cost)
	}
	return s + ")"
}

// tokenCount writes a token count the way people read it: 812, 12.3k, 1.25M.
func tokenCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
