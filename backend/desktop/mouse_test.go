package desktop_test

import (
	"bufio"
	"fmt"
	"io"

	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
)

// events runs xev on a window of its own and collects the button presses it reports, as
// "button N" lines, independently of Tofu.
type events struct {
	mu    sync.Mutex
	lines []string
}

func watchButtons(t *testing.T, s *desktoptest.Server, geometry string) (*events, string) {
	t.Helper()
	cmd := s.Command("xev", "-name", "TofuXev", "-geometry", geometry, "-event", "button")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.Background(cmd)
	ev := &events{}
	go ev.read(out)
	var id string
	s.WaitFor("xev's window", func() bool {
		o, _ := s.Command("xdotool", "search", "--onlyvisible", "--name", "TofuXev").Output()
		f := strings.Fields(string(o))
		if len(f) > 0 {
			id = f[0]
		}
		return id != ""
	})
	return ev, id
}

func (e *events) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	var block []string
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "ButtonPress event") {
			block = []string{l}
			continue
		}
		if block != nil {
			if i := strings.Index(l, "button "); i >= 0 {
				e.mu.Lock()
				e.lines = append(e.lines, "button "+strings.TrimSuffix(strings.Fields(l[i+len("button "):])[0], ","))
				e.mu.Unlock()
				block = nil
			}
		}
	}
}

func (e *events) seen() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string{}, e.lines...)
}

func TestMouseButtonsReachTheWindowUnderThePointer(t *testing.T) {
	// No window manager: what is tested is the X server delivering Tofu's input to the window
	// under the pointer. Openbox grabs buttons on client windows to focus them on click, and
	// under load a press of a double click was once lost between its grab and its replay.
	s, d := open(t, desktoptest.Options{NoWM: true})
	ev, id := watchButtons(t, s, "300x200+400+300")
	x, y, w, h := geometry(t, s, id)
	cx, cy := x+w/2, y+h/2
	if err := d.Move(cx, cy); err != nil {
		t.Fatal(err)
	}
	if loc := s.Output("xdotool", "getmouselocation"); !strings.HasPrefix(loc, fmt.Sprintf("x:%d y:%d ", cx, cy)) {
		t.Fatalf("xdotool sees the pointer at %s, want %d,%d", loc, cx, cy)
	}
	steps := []struct {
		name string
		do   func() error
		want []string
	}{
		{"click", func() error { return d.Click(cx, cy, desktop.ButtonLeft, 1) }, []string{"button 1"}},
		{"double click", func() error { return d.Click(cx, cy, desktop.ButtonLeft, 2) }, []string{"button 1", "button 1"}},
		{"right click", func() error { return d.Click(cx, cy, desktop.ButtonRight, 1) }, []string{"button 3"}},
		{"scroll down 2", func() error { return d.Scroll(cx, cy, 0, 2) }, []string{"button 5", "button 5"}},
		{"scroll up, left", func() error { return d.Scroll(cx, cy, -1, -1) }, []string{"button 4", "button 6"}},
	}
	var want []string
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		want = append(want, st.want...)
		s.WaitFor(st.name+" to reach xev", func() bool { return len(ev.seen()) >= len(want) })
	}
	if got := ev.seen(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("xev saw %v, want %v", got, want)
	}
	if err := d.Click(-1, 5, 1, 1); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("a click off the screen: %v", err)
	}
}
