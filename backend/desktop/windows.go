package desktop

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jezek/xgb/xproto"
)

// Window is a top-level window as the window manager lists it (EWMH _NET_CLIENT_LIST).
type Window struct {
	ID    uint32 `json:"id"`
	Title string `json:"title"`
	// Class is WM_CLASS's class part ("XTerm", "Zenity"); Instance its instance part.
	Class    string `json:"class"`
	Instance string `json:"instance,omitempty"`
	PID      int    `json:"pid,omitempty"`
	// Rect is the client area on the screen (without the window manager's frame).
	Rect Rect `json:"geometry"`
	// Desktop is the virtual desktop (-1: all desktops, or not said).
	Desktop int  `json:"desktop"`
	Focused bool `json:"focused"`
	Hidden  bool `json:"hidden,omitempty"`
}

// Label names the window for people and approval rules: its class, else its title.
func (w Window) Label() string {
	if w.Class != "" {
		return w.Class
	}
	return w.Title
}

// Windows lists the managed top-level windows, bottom to top in stacking order when the
// window manager says it (_NET_CLIENT_LIST_STACKING), else in mapping order.
func (d *Desktop) Windows() ([]Window, error) {
	ids, err := d.windowList("_NET_CLIENT_LIST_STACKING")
	if err != nil || len(ids) == 0 {
		ids, err = d.windowList("_NET_CLIENT_LIST")
	}
	if err != nil {
		return nil, err
	}
	active, _ := d.Active()
	out := make([]Window, 0, len(ids))
	for _, id := range ids {
		w, err := d.window(id)
		if err != nil {
			continue // the window closed while it was being read
		}
		w.Focused = uint32(id) == active
		out = append(out, w)
	}
	return out, nil
}

// Window reads one window's description.
func (d *Desktop) Window(id uint32) (Window, error) {
	w, err := d.window(xproto.Window(id))
	if err != nil {
		return Window{}, err
	}
	active, _ := d.Active()
	w.Focused = id == active
	return w, nil
}

func (d *Desktop) windowList(prop string) ([]xproto.Window, error) {
	vals, err := d.cardinals(d.root, prop)
	if err != nil {
		return nil, err
	}
	out := make([]xproto.Window, len(vals))
	for i, v := range vals {
		out[i] = xproto.Window(v)
	}
	if len(out) == 0 && prop == "_NET_CLIENT_LIST" {
		if ok, _ := d.wmRunning(); !ok {
			return nil, fmt.Errorf("no EWMH window manager runs on display %s (_NET_SUPPORTING_WM_CHECK is unset), so windows cannot be listed", d.display)
		}
	}
	return out, nil
}

// wmRunning says whether an EWMH window manager announces itself.
func (d *Desktop) wmRunning() (bool, error) {
	v, err := d.cardinals(d.root, "_NET_SUPPORTING_WM_CHECK")
	return len(v) > 0, err
}

// Active is the focused window (_NET_ACTIVE_WINDOW; 0 when none).
func (d *Desktop) Active() (uint32, error) {
	v, err := d.cardinals(d.root, "_NET_ACTIVE_WINDOW")
	if err != nil || len(v) == 0 {
		return 0, err
	}
	return v[0], nil
}

func (d *Desktop) window(id xproto.Window) (Window, error) {
	w := Window{ID: uint32(id), Desktop: -1}
	g, err := d.geometry(id)
	if err != nil {
		return w, err
	}
	w.Rect = g
	w.Title = d.text(id, "_NET_WM_NAME")
	if w.Title == "" {
		w.Title = d.text(id, "WM_NAME")
	}
	if cls := d.text(id, "WM_CLASS"); cls != "" {
		parts := strings.Split(cls, "\x00")
		w.Instance = parts[0]
		if len(parts) > 1 {
			w.Class = parts[1]
		}
	}
	if v, _ := d.cardinals(id, "_NET_WM_PID"); len(v) > 0 {
		w.PID = int(v[0])
	}
	if v, _ := d.cardinals(id, "_NET_WM_DESKTOP"); len(v) > 0 {
		w.Desktop = int(int32(v[0]))
	}
	if st, _ := d.cardinals(id, "_NET_WM_STATE"); len(st) > 0 {
		hidden, _ := d.atom("_NET_WM_STATE_HIDDEN")
		for _, a := range st {
			w.Hidden = w.Hidden || xproto.Atom(a) == hidden
		}
	}
	return w, nil
}

// geometry is a window's client area in root coordinates.
func (d *Desktop) geometry(id xproto.Window) (Rect, error) {
	g, err := xproto.GetGeometry(d.conn, xproto.Drawable(id)).Reply()
	if err != nil {
		return Rect{}, fmt.Errorf("window %#x: %w", uint32(id), err)
	}
	t, err := xproto.TranslateCoordinates(d.conn, id, d.root, 0, 0).Reply()
	if err != nil {
		return Rect{}, fmt.Errorf("window %#x: %w", uint32(id), err)
	}
	return Rect{X: int(t.DstX), Y: int(t.DstY), W: int(g.Width), H: int(g.Height)}, nil
}

// property reads a whole property.
func (d *Desktop) property(id xproto.Window, name string) (*xproto.GetPropertyReply, error) {
	a, err := d.atom(name)
	if err != nil {
		return nil, err
	}
	r, err := xproto.GetProperty(d.conn, false, id, a, xproto.GetPropertyTypeAny, 0, 1<<20).Reply()
	if err != nil {
		return nil, fmt.Errorf("read %s of window %#x: %w", name, uint32(id), err)
	}
	return r, nil
}

// text reads a string property (UTF8_STRING, STRING or the NUL-separated WM_CLASS).
func (d *Desktop) text(id xproto.Window, name string) string {
	r, err := d.property(id, name)
	if err != nil || r.Format != 8 {
		return ""
	}
	return clean(string(r.Value))
}

// cardinals reads a 32-bit list property (CARDINAL, WINDOW, ATOM).
func (d *Desktop) cardinals(id xproto.Window, name string) ([]uint32, error) {
	r, err := d.property(id, name)
	if err != nil {
		return nil, err
	}
	if r.Format != 32 {
		return nil, nil
	}
	out := make([]uint32, 0, r.ValueLen)
	for i := 0; i+4 <= len(r.Value); i += 4 {
		out = append(out, binary.LittleEndian.Uint32(r.Value[i:]))
	}
	return out, nil
}
