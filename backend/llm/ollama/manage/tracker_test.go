package manage

import (
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// The bar's figures: bytes over every layer, the speed of this pull only (what an earlier
// pull left is not counted as speed), and the time left at that speed.
func TestTrackerSpeedAndTimeLeft(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := newTracker("m", 1000)
	steps := []struct {
		at        time.Duration
		r         api.ProgressResponse
		completed int64
		speed     float64
		left      float64
	}{
		{0, api.ProgressResponse{Status: "pulling manifest"}, 0, 0, 0},
		// An earlier pull left 300 bytes of the first layer: resumed, not speed.
		{100 * time.Millisecond, api.ProgressResponse{Status: "pulling aaa", Digest: "sha256:aaa", Total: 800, Completed: 300}, 300, 0, 0},
		{1100 * time.Millisecond, api.ProgressResponse{Status: "pulling aaa", Digest: "sha256:aaa", Total: 800, Completed: 500}, 500, 200 / 1.1, 500 / (200 / 1.1)},
		{2100 * time.Millisecond, api.ProgressResponse{Status: "pulling aaa", Digest: "sha256:aaa", Total: 800, Completed: 800}, 800, 500 / 2.1, 200 / (500 / 2.1)},
		{2200 * time.Millisecond, api.ProgressResponse{Status: "pulling bbb", Digest: "sha256:bbb", Total: 200, Completed: 0}, 800, 500 / 2.2, 200 / (500 / 2.2)},
	}
	for i, s := range steps {
		p := tr.observe(t0.Add(s.at), s.r)
		if p.Completed != s.completed || p.Total != 1000 || !near(p.BytesPerSecond, s.speed) || !near(p.SecondsLeft, s.left) {
			t.Fatalf("step %d: %+v, want completed %d, %.1f B/s, %.2f s left", i, p, s.completed, s.speed, s.left)
		}
	}
	if p := tr.observe(t0.Add(2300*time.Millisecond), api.ProgressResponse{Status: "pulling bbb", Digest: "sha256:bbb", Total: 200, Completed: 100}); p.Resumed != 300 {
		t.Fatalf("resumed %d, want the 300 bytes found on disk", p.Resumed)
	}
	// Past the window, the speed follows the recent bytes only.
	p := tr.observe(t0.Add(9*time.Second), api.ProgressResponse{Status: "pulling bbb", Digest: "sha256:bbb", Total: 200, Completed: 150})
	if p.BytesPerSecond <= 0 || p.BytesPerSecond >= 500/2.2 {
		t.Fatalf("speed after a slow spell: %.1f", p.BytesPerSecond)
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
