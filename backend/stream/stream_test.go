package stream

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCoalescer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var flushes []string
	c := newCoalescer(time.Hour, func(text, _ string) {
		mu.Lock()
		flushes = append(flushes, text)
		mu.Unlock()
	})
	for i := 0; i < 100; i++ {
		c.add("x", "")
	}
	c.close()
	if len(flushes) != 1 || flushes[0] != strings.Repeat("x", 100) {
		t.Fatalf("flushes = %q", flushes)
	}
}
