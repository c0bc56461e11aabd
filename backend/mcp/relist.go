package mcp

import "sync"

// relist runs a list request one at a time for a server's list_changed notifications: one
// that comes while the list runs asks for one more run after it, not another goroutine. A
// server may send the notification without end, and each started a goroutine that waited up
// to 30 s on an answer: a flood of them (a few MB of output a second) made 250,000
// goroutines in 7 s and a fatal out-of-memory.
type relist struct {
	mu      sync.Mutex
	running bool
	again   bool
}

// run calls list on a goroutine of its own, or, when one runs, once more after it.
func (r *relist) run(list func()) {
	r.mu.Lock()
	if r.running {
		r.again = true
		r.mu.Unlock()
		return
	}
	r.running = true
	r.mu.Unlock()
	go func() {
		for {
			list()
			r.mu.Lock()
			if !r.again {
				r.running = false
				r.mu.Unlock()
				return
			}
			r.again = false
			r.mu.Unlock()
		}
	}()
}
