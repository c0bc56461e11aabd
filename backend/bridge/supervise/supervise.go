// Package supervise runs the chat bridges the settings turn on while Tofu is open, and runs a
// bridge again when its settings or its token change, so a change made in Settings applies
// without a restart.
package supervise

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/bridge"
	"github.com/tofu-research/tofu/backend/config"
)

// Open makes the bridge name set up as b: its platform with its token, the store, the runner.
type Open func(name string, b config.Bridge) (*bridge.Bridge, error)

// Supervisor runs bridges and says how each is doing.
type Supervisor struct {
	open Open
	logf func(format string, args ...any)

	applying sync.Mutex // one Apply (or the final stop) at a time

	mu     sync.Mutex
	ctx    context.Context // Run's; nil: nothing runs (tofu bridge, which only sets them up)
	runs   map[string]*run
	failed map[string]string // bridges that could not start or stopped, and why
}

// run is one bridge running with the settings conf.
type run struct {
	conf config.Bridge
	b    *bridge.Bridge
	stop context.CancelFunc
	done chan struct{}
}

// New supervises the bridges open makes; logf says what could not start or stopped.
func New(open Open, logf func(format string, args ...any)) *Supervisor {
	return &Supervisor{open: open, logf: logf, runs: map[string]*run{}, failed: map[string]string{}}
}

// Run starts the bridges that are on and keeps them until ctx ends; then it stops them (each
// waits for its turns to record where they stopped) and returns.
func (s *Supervisor) Run(ctx context.Context, bridges map[string]config.Bridge) {
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	s.Apply(bridges)
	<-ctx.Done()
	s.applying.Lock()
	defer s.applying.Unlock()
	s.mu.Lock()
	runs := s.runs
	s.ctx, s.runs = nil, map[string]*run{}
	s.mu.Unlock()
	for _, r := range runs {
		r.stop()
		<-r.done
	}
}

// Apply brings the running bridges in line with bridges: one turned off or removed stops, one
// turned on starts, and one whose settings changed, or named in again (its token changed),
// runs again with them (a turn it cuts is finished by the new run, as after a restart). Outside
// Run it does nothing.
func (s *Supervisor) Apply(bridges map[string]config.Bridge, again ...string) {
	s.applying.Lock()
	defer s.applying.Unlock()
	s.mu.Lock()
	ctx := s.ctx
	if ctx == nil || ctx.Err() != nil {
		s.mu.Unlock()
		return
	}
	var stop []*run
	for name, r := range s.runs {
		if b, ok := bridges[name]; !ok || !b.On || !reflect.DeepEqual(b, r.conf) || slices.Contains(again, name) {
			stop = append(stop, r)
			delete(s.runs, name)
		}
	}
	for name := range s.failed {
		if _, running := s.runs[name]; !running {
			delete(s.failed, name) // tried again below if it is on
		}
	}
	s.mu.Unlock()
	for _, r := range stop {
		r.stop()
		<-r.done
	}
	for name, b := range bridges {
		s.mu.Lock()
		_, running := s.runs[name]
		s.mu.Unlock()
		if running || !b.On {
			continue
		}
		s.start(ctx, name, b)
	}
}

// start opens the bridge name and runs it under ctx.
func (s *Supervisor) start(ctx context.Context, name string, b config.Bridge) {
	br, err := s.open(name, b)
	if err != nil {
		s.fail(name, nil, err)
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	r := &run{conf: b, b: br, stop: cancel, done: make(chan struct{})}
	s.mu.Lock()
	s.runs[name] = r
	s.mu.Unlock()
	go func() {
		defer close(r.done)
		if err := br.Run(rctx); err != nil && rctx.Err() == nil {
			s.fail(name, r, err)
		}
	}()
}

// fail records why the bridge name could not start (r nil) or why its run r stopped.
func (s *Supervisor) fail(name string, r *run, err error) {
	s.mu.Lock()
	if r != nil && s.runs[name] == r {
		delete(s.runs, name)
	}
	s.failed[name] = err.Error()
	s.mu.Unlock()
	if strings.HasPrefix(err.Error(), "bridge "+name+":") {
		s.logf("%v", err) // the error names the bridge already
	} else {
		s.logf("bridge %s: %v", name, err)
	}
}

// State says how the bridge name is doing: its status while it runs (running true), or why it
// could not start or stopped (failed; "" when it did neither).
func (s *Supervisor) State(name string) (status bridge.Status, running bool, failed string) {
	s.mu.Lock()
	r := s.runs[name]
	failed = s.failed[name]
	s.mu.Unlock()
	if r == nil {
		return bridge.Status{}, false, failed
	}
	return r.b.Status(), true, failed
}
