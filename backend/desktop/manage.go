package desktop

import (
	"fmt"

	"github.com/jezek/xgb/xproto"
)

// EWMH's source indication for requests from a pager or tool: window managers honour these
// without the focus-stealing prevention they apply to applications.
const sourcePager = 2

// clientMessage sends an EWMH request about window id to the root window, where the window
// manager listens.
func (d *Desktop) clientMessage(id uint32, name string, data ...uint32) error {
	a, err := d.atom(name)
	if err != nil {
		return err
	}
	var d32 [5]uint32
	copy(d32[:], data)
	ev := xproto.ClientMessageEvent{Format: 32, Window: xproto.Window(id), Type: a,
		Data: xproto.ClientMessageDataUnionData32New(d32[:])}
	err = xproto.SendEventChecked(d.conn, false, d.root,
		xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect, string(ev.Bytes())).Check()
	if err != nil {
		return fmt.Errorf("send %s for window %#x: %w", name, id, err)
	}
	return d.sync()
}

// known fails for an id that is not a listed window, so a stale id is reported as such.
func (d *Desktop) known(id uint32) error {
	if _, err := d.geometry(xproto.Window(id)); err != nil {
		return fmt.Errorf("no window %#x (it may have closed; list the windows again): %w", id, err)
	}
	return nil
}

// Focus activates a window: the window manager switches to its desktop, raises and focuses it.
func (d *Desktop) Focus(id uint32) error {
	if err := d.known(id); err != nil {
		return err
	}
	return d.clientMessage(id, "_NET_ACTIVE_WINDOW", sourcePager, xproto.TimeCurrentTime, 0)
}

// Raise puts a window above the others without focusing it.
func (d *Desktop) Raise(id uint32) error {
	if err := d.known(id); err != nil {
		return err
	}
	return d.clientMessage(id, "_NET_RESTACK_WINDOW", sourcePager, 0, xproto.StackModeAbove)
}

// MoveResize places a window's frame at (x, y) and sizes its client area w×h; a negative
// value leaves that part as it is.
func (d *Desktop) MoveResize(id uint32, x, y, w, h int) error {
	if err := d.known(id); err != nil {
		return err
	}
	// Flags: bits 8-11 say which of x, y, w, h are given; bits 12-13 the source; gravity 0
	// keeps the window's own (the frame's corner lands at x, y).
	flags := uint32(sourcePager) << 12
	vals := []int{x, y, w, h}
	data := []uint32{0, 0, 0, 0, 0}
	for i, v := range vals {
		if v >= 0 {
			flags |= 1 << (8 + i)
			data[i+1] = uint32(v)
		}
	}
	data[0] = flags
	return d.clientMessage(id, "_NET_MOVERESIZE_WINDOW", data...)
}

// CloseWindow asks a window to close, as its close button would (the app may ask to save).
func (d *Desktop) CloseWindow(id uint32) error {
	if err := d.known(id); err != nil {
		return err
	}
	return d.clientMessage(id, "_NET_CLOSE_WINDOW", xproto.TimeCurrentTime, sourcePager)
}
