package mcp

import (
	"sync"
	"testing"
)

// A flood of list_changed notifications started a goroutine each (250,000 in 7 s, a fatal
// out-of-memory). While a list runs, any number of notifications make one more run, after it.
func TestRelistCoalesces(t *testing.T) {
	t.Parallel()
	var r relist
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	var mu sync.Mutex
	runs := 0
	list := func() {
		mu.Lock()
		runs++
		mu.Unlock()
		started <- struct{}{}
		<-release
	}
	r.run(list)
	<-started // the first run is waiting
	for range 100_000 {
		r.run(list)
	}
	release <- struct{}{} // the first ends; one more runs
	<-started
	release <- struct{}{}
	// A notification after that runs the list once more, whether the goroutine has ended yet
	// (a new one) or not (one more run of it).
	r.run(list)
	<-started
	release <- struct{}{}
	mu.Lock()
	defer mu.Unlock()
	if runs != 3 {
		t.Fatalf("%d runs for 100,002 notifications, want 3", runs)
	}
}
