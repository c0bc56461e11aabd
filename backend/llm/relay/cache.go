package relay

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// cacheRequests is how many recent requests the prefix cache remembers: a turn's own, and
// those of sub-agents running beside it.
const cacheRequests = 32

// prefixCache plays a provider's prompt cache, so a relayed model reports what a caching
// provider would bill as cached (it reported none, and the run's summary under-reported the
// cache): the prompt tokens a request shares, from its start, with a request seen before.
// The prefix is counted as the tokenizer counts a request: the tools first, then whole
// messages up to the first that differs, as providers lay the prompt out.
type prefixCache struct {
	mu   sync.Mutex
	seen []llm.Request // oldest first
}

// cached returns the tokens of req's longest prefix shared with a request seen before, and
// remembers req.
func (c *prefixCache) cached(req llm.Request) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	best := 0
	for _, prev := range c.seen {
		best = max(best, sharedPrefix(prev, req))
	}
	c.seen = append(c.seen, req)
	if len(c.seen) > cacheRequests {
		c.seen = c.seen[1:]
	}
	return best
}

// sharedPrefix counts the tokens a and b share from their start (0 when their tools differ).
func sharedPrefix(a, b llm.Request) int {
	if !sameJSON(a.Tools, b.Tools) {
		return 0
	}
	n := 0
	if len(b.Tools) > 0 {
		n += tokens.ToolsHeader
		for _, t := range b.Tools {
			n += tokens.Tool(t)
		}
	}
	for i, m := range b.Messages {
		if i >= len(a.Messages) || !sameJSON(a.Messages[i], m) {
			break
		}
		n += tokens.Message(m)
	}
	return n
}

func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
