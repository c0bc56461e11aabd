package history

import (
	"time"

	"github.com/tofu-research/tofu/backend/store"
)

// work repairs the index from the logs, then flushes, merges and applies renames and
// deletions until Close; it is the only writer of the index's keys.
func (x *Index) work() {
	defer close(x.done)
	if err := x.recover(); err != nil {
		x.fail(err)
	}
	close(x.ready)
	tick := time.NewTicker(flushDelay)
	defer tick.Stop()
	for {
		select {
		case <-x.stop:
			for {
				select {
				case t := <-x.tasks:
					x.do(t)
					continue
				default:
				}
				break
			}
			x.flushAndMerge()
			return
		case t := <-x.tasks:
			x.do(t)
		case <-x.kick:
			x.flushAndMerge()
		case <-tick.C:
			x.flushAndMerge()
		}
	}
}

func (x *Index) do(t task) {
	switch {
	case t.sync != nil:
		x.flushAndMerge()
		close(t.sync)
	case t.deleted:
		x.ixMu.Lock()
		err := x.removeSession(t.session)
		x.ixMu.Unlock()
		if err != nil {
			x.fail(err)
		}
	default:
		x.ixMu.Lock()
		err := x.retitle(t.session, t.title)
		x.ixMu.Unlock()
		if err != nil {
			x.fail(err)
		}
	}
}

func (x *Index) flushAndMerge() {
	if x.failed() != nil {
		return
	}
	if err := x.flush(); err != nil {
		x.fail(err)
		return
	}
	if err := x.merge(); err != nil {
		x.fail(err)
	}
}

// onEvent indexes an appended event (the store calls it after the event is durable).
func (x *Index) onEvent(ev store.Event) {
	x.ixMu.Lock()
	err := x.follow(ev)
	x.ixMu.Unlock()
	if err != nil {
		x.fail(err)
		return
	}
	x.mu.Lock()
	due := len(x.pending) >= x.flushAt
	x.mu.Unlock()
	if due {
		select {
		case x.kick <- struct{}{}:
		default:
		}
	}
}

// onSessionChange hands a rename or a deletion to the worker: both rewrite the session's
// documents, too slow for the caller of UpdateSession to wait on.
func (x *Index) onSessionChange(c store.SessionChange) {
	x.mu.Lock()
	s := x.sessions[c.Info.ID]
	x.mu.Unlock()
	if s == nil || (!c.Deleted && s.Title == c.Info.Title) {
		return // a model or workspace change; or a session the index has not read yet
	}
	t := task{session: c.Info.ID, title: c.Info.Title, deleted: c.Deleted}
	select {
	case x.tasks <- t:
	case <-x.done:
	}
}
