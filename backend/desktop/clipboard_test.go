package desktop_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
)

func TestClipboardWithXclip(t *testing.T) {
	s, d := open(t, desktoptest.Options{NoWM: true})
	want := "Tofu ✓ 日本語\nsecond line"
	lost, err := d.WriteClipboard(desktop.SelClipboard, want)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Output("xclip", "-o", "-selection", "clipboard"); got != want {
		t.Fatalf("xclip read %q, want %q", got, want)
	}
	// xclip -quiet stays in the foreground serving the selection until it loses it.
	in := s.Command("xclip", "-quiet", "-i", "-selection", "clipboard")
	in.Stdin = stringsReader("from xclip ✓")
	s.Background(in)
	select {
	case <-lost:
	case <-time.After(time.Minute):
		t.Fatal("Tofu was not told it lost the clipboard")
	}
	ctx, cancel := context.WithTimeout(desktoptest.Context(t), time.Minute)
	defer cancel()
	got, err := d.ReadClipboard(ctx, desktop.SelClipboard)
	if err != nil || got != "from xclip ✓" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// TestCopyPasteBetweenTwoWindows selects a word in one xterm with a double click (xterm puts
// it on the primary selection) and pastes it into another with the middle button.
func TestCopyPasteBetweenTwoWindows(t *testing.T) {
	s, d := open(t, desktoptest.Options{})
	out := filepath.Join(t.TempDir(), "pasted.txt")
	src := xterm(t, s, "TofuSource", "30x5+20+40", "printf 'TOFUWORD\\n'; sleep 600")
	dst := xterm(t, s, "TofuTarget", "40x5+20+300", "stty raw -echo; head -c 8 > "+out+".part && mv "+out+".part "+out)
	x, y, _, _ := geometry(t, s, src)
	ctx := desktoptest.Context(t)
	// The word starts in the first cell; once xterm has drawn it, a double click selects it.
	s.WaitFor("xterm to draw the word", func() bool {
		shot, err := d.Region(desktop.Rect{X: x, Y: y, W: 40, H: 14})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(shot.Image.Pix); i += 4 {
			if shot.Image.Pix[i] < 128 {
				return true
			}
		}
		return false
	})
	// A double click is two clicks within xterm's multi-click time (250 ms) as the X server
	// stamps them; on a loaded machine the server can stamp them further apart, and xterm
	// then sees two single clicks. The double click is repeated (it is idempotent) until the
	// word is selected, each time well after the last so no triple click is made.
	selected := func() bool {
		o, _ := s.Command("xclip", "-o", "-selection", "primary").Output()
		return string(o) == "TOFUWORD"
	}
	for attempt := 1; ; attempt++ {
		if err := d.Click(x+15, y+8, desktop.ButtonLeft, 2); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !selected() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if selected() {
			break
		}
		if attempt == 10 {
			t.Fatal("the word was not selected after 10 double clicks")
		}
	}
	if got, err := d.ReadClipboard(ctx, desktop.SelPrimary); err != nil || got != "TOFUWORD" {
		o, _ := s.Command("xclip", "-o", "-selection", "primary").Output()
		t.Fatalf("Tofu read the primary selection as %q, %v (xclip: %q)", got, err, o)
	}
	tx, ty, tw, th := geometry(t, s, dst)
	if err := d.Focus(id32(t, dst)); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the target to be active", func() bool { return s.ActiveWindow() == dst })
	if err := d.Click(tx+tw/2, ty+th/2, desktop.ButtonMiddle, 1); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the target's shell to write the pasted line", func() bool { _, err := os.Stat(out); return err == nil })
	if got := readFile(out); got != "TOFUWORD" {
		t.Fatalf("pasted %q", got)
	}
}
