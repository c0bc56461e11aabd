package cli

import (
	"fmt"

	"github.com/tofu-research/tofu/backend/llm"
)

// usageTotal adds up the usage events of a run for the summary line `tofu run` ends with.
type usageTotal struct {
	calls, in, out, cached int
	cost                   float64
}

func (u *usageTotal) add(x llm.Usage) {
	u.calls++
	u.in += x.InputTokens
	u.out += x.OutputTokens
	u.cached += x.CacheReadTokens
	u.cost += x.CostUSD
}

// line is the summary: calls, tokens in (with the share read from the provider's cache) and
// out, and the cost when the models are priced in the settings. "" when no call was made.
func (u usageTotal) line() string {
	if u.calls == 0 {
		return ""
	}
	s := fmt.Sprintf("(%d model call(s): %s tokens in", u.calls, tokenCount(u.in))
	if u.cached > 0 && u.in > 0 {
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
