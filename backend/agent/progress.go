package agent

import (
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
)

// progressEvery bounds how often a call's progress is logged: a server may report every item
// of a long loop, and the card needs a few updates a second at most. The last report (done ==
// total) is always kept.
const progressEvery = 250 * time.Millisecond

// progressLog records a running call's progress reports as tool_progress events, at most one
// per progressEvery, until stop: a report arriving after the call returned is dropped, so no
// progress follows the call's result in the log.
type progressLog struct {
	mu      sync.Mutex
	j       *journal
	callID  string
	last    time.Time
	stopped bool
}

func (p *progressLog) report(r tools.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	final := r.Total > 0 && r.Done >= r.Total
	if p.stopped || (!final && !p.last.IsZero() && now.Sub(p.last) < progressEvery) {
		return
	}
	p.last = now
	// A failed write is kept by the journal and ends the turn after the call; the call itself
	// need not stop for it.
	_ = p.j.add(store.EventToolProgress, store.ToolProgress{CallID: p.callID, Progress: r.Done, Total: r.Total, Message: r.Message})
}

func (p *progressLog) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}
