package desktoptest

import (
	"fmt"
	"io"
	"log"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// wmManages maps a probe window and reports a function that says whether the window manager
// has framed it yet (its parent is no longer the root): a window manager announces itself
// before its event loop runs, and a window mapped in between may never be managed.
func wmManages(display string) (managed func() bool, done func(), err error) {
	xgb.Logger = log.New(io.Discard, "", 0) // it warns about a missing ~/.Xauthority
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", display, err)
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	id, err := c.NewId()
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	w := xproto.Window(id)
	xproto.CreateWindow(c, 0, w, root, 0, 0, 10, 10, 0, xproto.WindowClassInputOutput, 0, 0, nil)
	xproto.MapWindow(c, w)
	polls := 0
	managed = func() bool {
		r, err := xproto.QueryTree(c, w).Reply()
		if err == nil && r.Parent != root {
			return true
		}
		// Mapped while the window manager started (after it listed the windows there were,
		// before it asked to be told of new ones), the probe is never managed: map it again
		// now and then, which a running window manager hears.
		if polls++; polls%50 == 0 {
			xproto.UnmapWindow(c, w)
			xproto.MapWindow(c, w)
		}
		return false
	}
	done = func() {
		xproto.DestroyWindow(c, w)
		xproto.GetInputFocus(c).Reply()
		c.Close()
	}
	return managed, done, nil
}
