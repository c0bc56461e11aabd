package library

import (
	"context"
	"fmt"
	"sync"
)

// MaxImports is how many imports run at once. An extraction may use up to ~512 MB
// (backend/paper's bounds), so two keep a machine responsive; the rest are turned away
// (uploads) or wait (imports from the window and the CLI, which a person paces).
const MaxImports = 2

// ErrImportsBusy is the answer to an upload while MaxImports imports run.
var ErrImportsBusy = fmt.Errorf("%d imports are already running: try again when one finishes", MaxImports)

// ImportSlots holds one token per import running; made on first use so that its zero value
// is ready.
type ImportSlots struct {
	once sync.Once
	ch   chan struct{}
}

func (s *ImportSlots) slots() chan struct{} {
	s.once.Do(func() { s.ch = make(chan struct{}, MaxImports) })
	return s.ch
}

// TryAcquire takes a slot if one is free.
func (s *ImportSlots) TryAcquire() (release func(), ok bool) {
	select {
	case s.slots() <- struct{}{}:
		return s.release, true
	default:
		return nil, false
	}
}

// Acquire waits for a slot until ctx ends.
func (s *ImportSlots) Acquire(ctx context.Context) (release func(), err error) {
	select {
	case s.slots() <- struct{}{}:
		return s.release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *ImportSlots) release() { <-s.slots() }
