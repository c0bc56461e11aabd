package desktop_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
)

// TestStopKeyAndIndicator: ctrl+alt+End pressed from another client (xdotool) reaches the
// stop hook wherever the focus is, and the indicator strip shows without catching clicks.
func TestStopKeyAndIndicator(t *testing.T) {
	s, d := open(t, desktoptest.Options{})
	if err := d.GrabStopKey(); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{}, 4)
	remove := d.OnStop(func() { stopped <- struct{}{} })
	defer remove()
	xterm(t, s, "TofuFocus", "40x5+40+300", "sleep 600")
	// Pressed until the hook hears it, so a press the window manager swallowed while it
	// settled the new window's focus does not hang the test.
	presses := 0
	s.WaitFor("the stop key to reach the hook", func() bool {
		presses++
		s.Output("xdotool", "key", "ctrl+alt+End")
		select {
		case <-stopped:
			return true
		case <-time.After(500 * time.Millisecond):
			return false
		}
	})
	if presses > 1 {
		t.Logf("the hook heard press %d", presses)
	}

}

// TestIndicatorLetsClicksThrough: the strip shows at the top and a click on it reaches the
// window below (no window manager: xev's window sits at the very top).
func TestIndicatorLetsClicksThrough(t *testing.T) {
	s, d := open(t, desktoptest.Options{NoWM: true})
	ev, _ := watchButtons(t, s, "600x100+300+0")
	if err := d.ShowIndicator("Tofu's agent is controlling this desktop - " + desktop.StopKey + " stops it"); err != nil {
		t.Fatal(err)
	}
	info := s.Output("xwininfo", "-name", "Tofu: agent controls the desktop")
	if !strings.Contains(info, "IsViewable") || !strings.Contains(info, "Absolute upper-left Y:  0") {
		t.Fatalf("the indicator is not shown at the top:\n%s", info)
	}
	if err := d.Click(640, 5, desktop.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the click to pass through the strip to xev", func() bool { return len(ev.seen()) == 1 })
	d.HideIndicator()
	if info := s.Output("xwininfo", "-name", "Tofu: agent controls the desktop"); !strings.Contains(info, "IsUnMapped") {
		t.Fatalf("the indicator stayed:\n%s", info)
	}
}
