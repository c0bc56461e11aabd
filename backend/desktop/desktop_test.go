package desktop_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
)

// open starts a display and connects to it.
func open(t *testing.T, o desktoptest.Options) (*desktoptest.Server, *desktop.Desktop) {
	t.Helper()
	s := desktoptest.Start(t, o)
	d, err := desktop.Open(desktoptest.Context(t), s.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return s, d
}

// xterm starts an xterm of class running script with sh, in UTF-8, and returns its window id
// as xdotool prints it.
func xterm(t *testing.T, s *desktoptest.Server, class, geometry, script string) string {
	t.Helper()
	cmd := s.Command("xterm", "-class", class, "-title", class, "-u8", "-geometry", geometry, "-e", "sh", "-c", script)
	cmd.Env = append(cmd.Env, "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	s.Background(cmd)
	return s.WindowOf(class)
}

// geometry reads a window's client area with xwininfo (xdotool getwindowgeometry adds the
// frame's extents to the position a second time).
func geometry(t *testing.T, s *desktoptest.Server, id string) (x, y, w, h int) {
	t.Helper()
	out := s.Output("xwininfo", "-id", id)
	v := map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		k, val, ok := strings.Cut(strings.TrimSpace(l), ":")
		if ok {
			v[k], _ = strconv.Atoi(strings.TrimSpace(val))
		}
	}
	return v["Absolute upper-left X"], v["Absolute upper-left Y"], v["Width"], v["Height"]
}

func id32(t *testing.T, s string) uint32 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(n)
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func TestWindowsListedAsXdotoolSeesThem(t *testing.T) {
	s, d := open(t, desktoptest.Options{})
	a := xterm(t, s, "TofuAlpha", "40x10+40+60", "sleep 600")
	b := xterm(t, s, "TofuBeta", "40x10+500+300", "sleep 600")
	if err := d.Focus(id32(t, b)); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("TofuBeta to be active", func() bool { return s.ActiveWindow() == b })
	ws, err := d.Windows()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]desktop.Window{}
	for _, w := range ws {
		seen[w.Class] = w
	}
	for _, id := range []string{a, b} {
		w, ok := seen[classOf(s.Output("xprop", "-id", id, "WM_CLASS"))]
		if !ok {
			t.Fatalf("window %s missing from %+v", id, ws)
		}
		if strconv.Itoa(int(w.ID)) != id {
			t.Errorf("%s: id %d, xdotool says %s", w.Class, w.ID, id)
		}
		if pid := s.Output("xdotool", "getwindowpid", id); strconv.Itoa(w.PID) != pid {
			t.Errorf("%s: pid %d, xdotool says %s", w.Class, w.PID, pid)
		}
		x, y, wd, ht := geometry(t, s, id)
		if w.Rect != (desktop.Rect{X: x, Y: y, W: wd, H: ht}) {
			t.Errorf("%s: geometry %+v, xdotool says %d,%d %dx%d", w.Class, w.Rect, x, y, wd, ht)
		}
		if w.Title != w.Class {
			t.Errorf("title %q, want %q", w.Title, w.Class)
		}
		if w.Focused != (id == b) {
			t.Errorf("%s focused=%v", w.Class, w.Focused)
		}
	}
}

func TestTypeUnicodeIntoXterm(t *testing.T) {
	s, d := open(t, desktoptest.Options{})
	out := filepath.Join(t.TempDir(), "typed.txt")
	id := xterm(t, s, "TofuTyped", "60x10+50+50", "IFS= read -r line; printf '%s' \"$line\" > "+out+".part && mv "+out+".part "+out)
	if err := d.Focus(id32(t, id)); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the xterm to be active", func() bool { return s.ActiveWindow() == id })
	want := `Hello, wörld! ~ {x} "ß" ✓ 日本語 €5 #1`
	if err := d.Type(desktoptest.Context(t), want+"\n"); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("xterm's shell to write the line", func() bool { _, err := os.Stat(out); return err == nil })
	if got := readFile(out); got != want {
		t.Fatalf("the shell read %q, want %q", got, want)
	}
}

func TestKeyComboEndsCat(t *testing.T) {
	s, d := open(t, desktoptest.Options{})
	dir := t.TempDir()
	id := xterm(t, s, "TofuCat", "60x10+50+50", "cat > "+dir+"/cat.txt; echo done > "+dir+"/done")
	if err := d.Focus(id32(t, id)); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the xterm to be active", func() bool { return s.ActiveWindow() == id })
	ctx := desktoptest.Context(t)
	if err := d.Type(ctx, "abc"); err != nil {
		t.Fatal(err)
	}
	for _, combo := range []string{"Return", "ctrl+d"} {
		if err := d.Key(ctx, combo); err != nil {
			t.Fatal(err)
		}
	}
	s.WaitFor("cat to end on ctrl+d", func() bool { _, err := os.Stat(dir + "/done"); return err == nil })
	if got := readFile(dir + "/cat.txt"); got != "abc\n" {
		t.Fatalf("cat wrote %q", got)
	}
}

func TestArrangeWindows(t *testing.T) {
	s, d := open(t, desktoptest.Options{})
	a := xterm(t, s, "TofuMove", "40x10+40+60", "sleep 600")
	if err := d.MoveResize(id32(t, a), 300, 200, 400, 300); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the window to move and resize", func() bool {
		x, y, w, h := geometry(t, s, a)
		left, top := extents(t, s, a)
		// The frame's corner lands at (300, 200), and xterm rounds its size to whole cells.
		return x == 300+left && y == 200+top && w > 380 && w <= 400 && h > 280 && h <= 300
	})
	b := xterm(t, s, "TofuOther", "40x10+40+60", "sleep 600")
	s.WaitFor("the new window to be active", func() bool { return s.ActiveWindow() == b })
	if err := d.Focus(id32(t, a)); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the first window to be active", func() bool { return s.ActiveWindow() == a })
	if err := d.CloseWindow(id32(t, b)); err != nil {
		t.Fatal(err)
	}
	polls := 0
	s.WaitFor("the window to close", func() bool {
		out, _ := s.Command("xdotool", "search", "--class", "TofuOther").Output()
		if strings.TrimSpace(string(out)) == "" {
			return true
		}
		// A close is a request the window manager may drop while it still settles the
		// focus change just made; a person would press the button again, so does this.
		if polls++; polls%25 == 0 {
			t.Logf("closing again after %d polls", polls)
			d.CloseWindow(id32(t, b))
		}
		return false
	})
	if err := d.Focus(id32(t, b)); err == nil {
		t.Fatal("focusing a closed window did not fail")
	}
}

func TestDragWindowByItsTitleBar(t *testing.T) {
	s, d := open(t, desktoptest.Options{})
	id := xterm(t, s, "TofuDrag", "40x10+100+100", "sleep 600")
	// openbox has finished taking the window in once it has focused it.
	s.WaitFor("the new window to be active", func() bool { return s.ActiveWindow() == id })
	x0, y0, _, _ := geometry(t, s, id)
	// openbox draws the title bar just above the client area.
	if err := d.Drag(desktoptest.Context(t), x0+60, y0-8, x0+260, y0+142); err != nil {
		t.Fatal(err)
	}
	n := 0
	s.WaitFor("the window to follow the drag", func() bool {
		x, y, _, _ := geometry(t, s, id)
		if n++; n == 100 {
			t.Logf("started at %d,%d; now at %d,%d", x0, y0, x, y)
		}
		return x == x0+200 && y == y0+150
	})
	if loc := s.Output("xdotool", "getmouselocation"); !strings.HasPrefix(loc, "x:"+strconv.Itoa(x0+260)+" y:"+strconv.Itoa(y0+142)+" ") {
		t.Fatalf("the pointer is at %s", loc)
	}
}

// classOf reads the class from xprop's WM_CLASS line: WM_CLASS(STRING) = "xterm", "TofuAlpha".
func classOf(line string) string {
	f := strings.Split(line, `"`)
	if len(f) < 4 {
		return ""
	}
	return f[3]
}

// extents reads the frame's left and top widths the window manager set (_NET_FRAME_EXTENTS).
func extents(t *testing.T, s *desktoptest.Server, id string) (left, top int) {
	t.Helper()
	_, v, _ := strings.Cut(s.Output("xprop", "-id", id, "_NET_FRAME_EXTENTS"), "=")
	f := strings.Split(v, ",")
	if len(f) != 4 {
		t.Fatalf("no frame extents on window %s: %q", id, v)
	}
	left, _ = strconv.Atoi(strings.TrimSpace(f[0]))
	top, _ = strconv.Atoi(strings.TrimSpace(f[2]))
	return left, top
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestTypeMoreCharactersThanSpareKeys types more distinct characters the layout lacks than the
// keyboard has free keycodes, so mappings are recycled; each few characters wait until the
// shell (in raw mode) has written them, as a person's pace would let the app read them.
func TestTypeMoreCharactersThanSpareKeys(t *testing.T) {
	s, d := open(t, desktoptest.Options{})
	out := filepath.Join(t.TempDir(), "typed.txt")
	id := xterm(t, s, "TofuMany", "100x20+20+20", "stty raw -echo; cat > "+out)
	if err := d.Focus(id32(t, id)); err != nil {
		t.Fatal(err)
	}
	s.WaitFor("the xterm to be active", func() bool { return s.ActiveWindow() == id })
	var want strings.Builder
	for r := rune(0x4e00); r < 0x4e00+100; r += 4 {
		chunk := string([]rune{r, r + 1, r + 2, r + 3})
		if err := d.Type(desktoptest.Context(t), chunk); err != nil {
			t.Fatal(err)
		}
		want.WriteString(chunk)
		s.WaitFor("the shell to write "+chunk, func() bool { return len(readFile(out)) >= want.Len() })
		if got := readFile(out); got != want.String() {
			t.Fatalf("the shell wrote %q, want %q", got, want.String())
		}
	}
}
