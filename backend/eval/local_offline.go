package eval

import (
	"reflect"
	"sync"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
)

// offlineCache stands in for the server in `tofu eval local --offline`: it serves from its
// "cache" every whole message a request repeats from the previous one, and counts the rest as
// evaluated, in o200k tokens. On v0.6.8 the real server evaluated exactly that, plus the one
// token it always leaves to sample (a 46-step session: 91.3% from cache measured, 91.3%
// predicted), so whole sessions of every trajectory can be replayed in seconds where the
// server takes minutes a session on a small machine. One session at a time: a swarm or a
// summary call would need the server's slots.
type offlineCache struct {
	mu   sync.Mutex
	prev []llm.Message
}

func (c *offlineCache) call(msgs []llm.Message) LocalStep {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := len(c.prev)
	for i := range c.prev {
		if i >= len(msgs) || !reflect.DeepEqual(c.prev[i], msgs[i]) {
			first = i
			break
		}
	}
	step := LocalStep{}
	for i, m := range msgs {
		n := compact.MessageTokens(m)
		step.Prompt += n
		if i >= first {
			step.Evaluated += n
		}
	}
	c.prev = msgs
	return step
}

func (c *offlineCache) reset() {
	c.mu.Lock()
	c.prev = nil
	c.mu.Unlock()
}
