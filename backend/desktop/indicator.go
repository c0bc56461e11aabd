package desktop

import (
	"fmt"

	"github.com/jezek/xgb/shape"
	"github.com/jezek/xgb/xfixes"
	"github.com/jezek/xgb/xproto"
)

// indicator is a red strip at the top of the screen that says the agent controls the desktop.
// It lets every click through (its input shape is empty), so it never changes what the
// agent's clicks hit.
type indicator struct {
	win  xproto.Window
	gc   xproto.Gcontext
	text string
}

// ShowIndicator shows text in the indicator strip (again: replaces the text).
func (d *Desktop) ShowIndicator(text string) error {
	d.indMu.Lock()
	defer d.indMu.Unlock()
	if d.ind == nil {
		ind, err := d.createIndicator()
		if err != nil {
			return err
		}
		d.ind = ind
	}
	d.ind.text = text
	w := uint32(min(d.width, 8+6*len(text)+8))
	xproto.ConfigureWindow(d.conn, d.ind.win, xproto.ConfigWindowX|xproto.ConfigWindowWidth|xproto.ConfigWindowStackMode,
		[]uint32{uint32((d.width - int(w)) / 2), w, xproto.StackModeAbove})
	xproto.MapWindow(d.conn, d.ind.win)
	d.drawIndicator()
	return d.sync()
}

// HideIndicator takes the strip away.
func (d *Desktop) HideIndicator() {
	d.indMu.Lock()
	defer d.indMu.Unlock()
	if d.ind != nil {
		xproto.UnmapWindow(d.conn, d.ind.win)
		_ = d.sync()
	}
}

func (d *Desktop) createIndicator() (*indicator, error) {
	wid, err := d.conn.NewId()
	if err != nil {
		return nil, err
	}
	win := xproto.Window(wid)
	screen := xproto.Setup(d.conn).DefaultScreen(d.conn)
	const red, white = 0xc62828, 0xffffff // pixels of a TrueColor 24-bit visual
	err = xproto.CreateWindowChecked(d.conn, screen.RootDepth, win, d.root, 0, 0, 200, 18, 0,
		xproto.WindowClassInputOutput, screen.RootVisual,
		xproto.CwBackPixel|xproto.CwOverrideRedirect|xproto.CwEventMask,
		[]uint32{red, 1, xproto.EventMaskExposure}).Check()
	if err != nil {
		return nil, fmt.Errorf("create the indicator: %w", err)
	}
	fid, err := d.conn.NewId()
	if err != nil {
		return nil, err
	}
	font := xproto.Font(fid)
	if err := xproto.OpenFontChecked(d.conn, font, uint16(len("fixed")), "fixed").Check(); err != nil {
		return nil, fmt.Errorf("open the indicator's font: %w", err)
	}
	gid, err := d.conn.NewId()
	if err != nil {
		return nil, err
	}
	gc := xproto.Gcontext(gid)
	xproto.CreateGC(d.conn, gc, xproto.Drawable(win), xproto.GcForeground|xproto.GcBackground|xproto.GcFont,
		[]uint32{white, red, uint32(font)})
	if d.xfixes {
		rid, err := d.conn.NewId()
		if err == nil {
			xfixes.CreateRegion(d.conn, xfixes.Region(rid), nil)
			xfixes.SetWindowShapeRegion(d.conn, win, shape.SkInput, 0, 0, xfixes.Region(rid))
			xfixes.DestroyRegion(d.conn, xfixes.Region(rid))
		}
	}
	name := "Tofu: agent controls the desktop"
	xproto.ChangeProperty(d.conn, xproto.PropModeReplace, win, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(name)), []byte(name))
	return &indicator{win: win, gc: gc}, nil
}

// drawIndicator draws the text (the pump calls it on Expose too); d.indMu is held.
func (d *Desktop) drawIndicator() {
	if d.ind == nil {
		return
	}
	t := d.ind.text
	if len(t) > 255 {
		t = t[:255]
	}
	xproto.ImageText8(d.conn, byte(len(t)), xproto.Drawable(d.ind.win), d.ind.gc, 8, 13, t)
}

func (d *Desktop) exposed(e xproto.ExposeEvent) {
	d.indMu.Lock()
	defer d.indMu.Unlock()
	if d.ind != nil && e.Window == d.ind.win {
		d.drawIndicator()
	}
}
