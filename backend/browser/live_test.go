package browser

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLiveViewAndTakeOver(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	if err := m.Watch(ctx, "s", func(Frame) {}); !errors.Is(err, ErrNoPage) {
		t.Fatalf("watching no tab: %v", err)
	}
	if _, err := m.Navigate(ctx, "s", sites(t)+"/widgets/index.html"); err != nil {
		t.Fatal(err)
	}
	frames := make(chan Frame, 16)
	wctx, stop := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() {
		watched <- m.Watch(wctx, "s", func(f Frame) {
			select {
			case frames <- f:
			default:
			}
		})
	}()
	// A change on the page makes a frame.
	if _, err := m.EvalValue(ctx, "s", `document.body.style.background = 'yellow'`); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-frames:
		if len(f.JPEG) < 100 || f.JPEG[0] != 0xFF || f.Width != 1280 {
			t.Fatalf("frame of %d bytes, %vx%v", len(f.JPEG), f.Width, f.Height)
		}
	case <-ctx.Done():
		t.Fatal("no frame came")
	}
	stop()
	if err := <-watched; err != nil {
		t.Fatal(err)
	}

	// The user takes over: the agent's calls wait (here until their deadline), the user's click
	// lands, and once handed back the agent goes on and sees it.
	m.TakeOver("s", true)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := m.Snapshot(short, "s", 0)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an agent call while the user has the browser: %v", err)
	}
	box, err := m.EvalValueAsUser(ctx, "s", `JSON.stringify(document.getElementById('card').getBoundingClientRect())`)
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ X, Y, Width, Height float64 }
	if err := json.Unmarshal([]byte(unquoteJSON(box)), &r); err != nil {
		t.Fatal(err)
	}
	if err := m.UserClick(ctx, "s", r.X+r.Width/2, r.Y+r.Height/2); err != nil {
		t.Fatal(err)
	}
	m.TakeOver("s", false)
	rep, err := m.Snapshot(ctx, "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Text, "card;") {
		t.Fatalf("the user's click did not land:\n%s", rep.Text[:200])
	}
}

func unquoteJSON(s string) string {
	var out string
	if json.Unmarshal([]byte(s), &out) != nil {
		return s
	}
	return out
}
