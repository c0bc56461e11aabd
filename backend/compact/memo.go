package compact

import "sync"

// memo keeps strings built from a message by a hash of their inputs: the same cold messages
// are rebuilt on every request of a session. It forgets everything once it holds 8192.
type memo struct {
	mu sync.Mutex
	m  map[uint64]string
}

// get returns the string kept for key, building and keeping it the first time.
func (c *memo) get(key uint64, build func() string) string {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = build()
	c.mu.Lock()
	if c.m == nil {
		c.m = map[uint64]string{}
	} else if len(c.m) >= 1<<13 {
		clear(c.m)
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}
