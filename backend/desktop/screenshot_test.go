package desktop_test

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/desktoptest"
)

func TestScreenshotMatchesImageMagick(t *testing.T) {
	s, d := open(t, desktoptest.Options{Width: 800, Height: 600})
	cmd := s.Command("xterm", "-class", "TofuRed", "-bg", "red", "-geometry", "20x5+100+80", "-e", "sleep", "600")
	s.Background(cmd)
	id := s.WindowOf("TofuRed")
	x, y, w, h := geometry(t, s, id)
	shot, err := d.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	if b := shot.Image.Bounds(); b.Dx() != 800 || b.Dy() != 600 {
		t.Fatalf("screenshot is %v", b)
	}
	// ImageMagick reads the same screen on its own connection.
	ref := filepath.Join(t.TempDir(), "ref.png")
	s.Output("import", "-window", "root", ref)
	f, err := os.Open(ref)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	diff := 0
	for py := 0; py < 600; py += 7 {
		for px := 0; px < 800; px += 7 {
			r1, g1, b1, _ := im.At(px, py).RGBA()
			r2, g2, b2, _ := shot.Image.At(px, py).RGBA()
			if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 {
				diff++
			}
		}
	}
	if diff > 0 {
		t.Fatalf("%d sampled pixels differ from ImageMagick's screenshot", diff)
	}
	// A red corner of the window, found in a half-size copy, maps back inside the window.
	small := shot.Downscale(400, 0)
	if small.Frame.W != 400 || small.Frame.H != 300 || small.Frame.Scale != 0.5 {
		t.Fatalf("downscaled frame %+v", small.Frame)
	}
	sx, sy := small.Frame.FromScreen(x+w-4, y+h-4)
	c := small.Image.RGBAAt(sx, sy)
	if c.R < 200 || c.G > 60 || c.B > 60 {
		t.Fatalf("pixel %d,%d of the small image is %v, not the window's red", sx, sy, c)
	}
	bx, by := small.Frame.ToScreen(sx, sy)
	if bx < x || by < y || bx >= x+w || by >= y+h {
		t.Fatalf("(%d,%d) maps back to (%d,%d), outside the window %d,%d %dx%d", sx, sy, bx, by, x, y, w, h)
	}
	win, err := d.WindowShot(id32(t, id))
	if err != nil {
		t.Fatal(err)
	}
	if win.Frame != (desktop.Frame{X: x, Y: y, Scale: 1, W: w, H: h}) {
		t.Fatalf("window shot frame %+v", win.Frame)
	}
	if c := win.Image.RGBAAt(w/2, h-3); c.R < 200 || c.G > 60 {
		t.Fatalf("window shot pixel %v", c)
	}
	if _, err := d.Region(desktop.Rect{X: 900, Y: 0, W: 10, H: 10}); err == nil {
		t.Fatal("a region off the screen did not fail")
	}
}

func TestNoDisplaySaysWhatWorks(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	_, err := desktop.Open(desktoptest.Context(t), "")
	if err == nil || !containsAll(err.Error(), "Wayland", "X11", "do not work") {
		t.Fatalf("under Wayland: %v", err)
	}
	t.Setenv("WAYLAND_DISPLAY", "")
	_, err = desktop.Open(desktoptest.Context(t), "")
	if err == nil || !containsAll(err.Error(), "DISPLAY is not set", "Xvfb") {
		t.Fatalf("with no display: %v", err)
	}
	_, err = desktop.Open(desktoptest.Context(t), ":4097")
	if err == nil || !containsAll(err.Error(), "cannot connect to X display :4097") {
		t.Fatalf("with a display nobody serves: %v", err)
	}
}
