package registrytest

import (
	"math"
	"net/http"
	"sync"
)

// Gate holds a blob's bytes from an offset on until the test lets them through, so a pull can
// be caught mid-way without timing anything.
type Gate struct {
	mu      sync.Mutex
	at      int64         // bytes before this offset flow; the rest wait
	moved   chan struct{} // closed and replaced when at moves
	reached chan struct{} // closed once a request has written everything up to at
}

// Gate holds the blob digest at offset at (0 holds all of it). Every later request for the
// blob goes through the same gate.
func (r *Registry) Gate(digest string, at int64) *Gate {
	g := &Gate{at: at, moved: make(chan struct{}), reached: make(chan struct{})}
	r.mu.Lock()
	r.gates[digest] = g
	r.mu.Unlock()
	return g
}

// Reached is closed once a request has sent every byte before the gate and waits at it.
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// Open lets every byte through, now and later.
func (g *Gate) Open() { g.MoveTo(math.MaxInt64) }

// MoveTo holds the blob at offset at from now on.
func (g *Gate) MoveTo(at int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.at = at
	close(g.moved)
	g.moved = make(chan struct{})
}

// wait returns how far a request at pos may write (at most end), waiting while the gate holds
// pos; false when the client went away first.
func (g *Gate) wait(req *http.Request, pos, end int64) (int64, bool) {
	for {
		g.mu.Lock()
		at, moved := g.at, g.moved
		if pos >= at {
			select {
			case <-g.reached:
			default:
				close(g.reached)
			}
		}
		g.mu.Unlock()
		if pos < at {
			return min(at, end), true
		}
		select {
		case <-moved:
		case <-req.Context().Done():
			return 0, false
		}
	}
}
