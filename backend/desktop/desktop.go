// Package desktop drives an X11 desktop in pure Go (xgb with XTEST, RandR and XFixes): it takes
// screenshots, lists and arranges windows through EWMH, moves the mouse, types, and owns the
// clipboard. One Desktop is one connection to the X server, safe for concurrent use.
package desktop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xfixes"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// quietOnce silences xgb's logger, which prints to stderr about a missing ~/.Xauthority on
// every connection to a server that needs none.
var quietOnce sync.Once

// ErrNoDisplay means there is no X11 display to connect to; its text says what works instead.
var ErrNoDisplay = errors.New("desktop control needs an X11 display")

// Desktop is a connection to one X server.
type Desktop struct {
	conn    *xgb.Conn
	display string
	root    xproto.Window
	width   int
	height  int
	depth   byte
	// own is a hidden window that owns selections and receives their conversions.
	own xproto.Window
	// randr and xfixes say whether those optional extensions answered.
	randr, xfixes bool
	// shm captures through shared memory (nil: GetImage over the socket).
	shm *shmCapture

	atomMu sync.Mutex
	atoms  map[string]xproto.Atom

	// inputMu serialises input actions: a drag or a typed string is never interleaved with
	// another action.
	inputMu sync.Mutex
	keys    *keymap

	clip clipboard

	indMu sync.Mutex
	ind   *indicator

	stopMu sync.Mutex
	onStop []func()

	done chan struct{}
}

// Environment describes the display Open would use, and what works there.
type Environment struct {
	Display string `json:"display"`
	Wayland string `json:"wayland,omitempty"`
	// Note says what works and what does not (XWayland, no display).
	Note string `json:"note,omitempty"`
}

// Probe reads the environment's display variables without connecting.
func Probe() Environment {
	env := Environment{Display: os.Getenv("DISPLAY"), Wayland: os.Getenv("WAYLAND_DISPLAY")}
	switch {
	case env.Display == "" && env.Wayland != "":
		env.Note = "this session runs Wayland (WAYLAND_DISPLAY=" + env.Wayland + ") with no X11 DISPLAY: " +
			"Tofu's desktop control speaks X11 only, so screenshots, input, windows and the clipboard do not work here; " +
			"start Tofu inside an X11 session (or with XWayland's DISPLAY set) to use them"
	case env.Display == "":
		env.Note = "no display: DISPLAY is not set (a headless machine or an SSH session without X forwarding); " +
			"desktop control needs an X server, for example `Xvfb :99 & export DISPLAY=:99`"
	case env.Wayland != "":
		env.Note = "Wayland session with XWayland (DISPLAY=" + env.Display + "): only X11 (XWayland) windows are listed, " +
			"captured and receive input; native Wayland windows show as black or not at all, and the clipboard is shared " +
			"through XWayland's bridge"
	}
	return env
}

// Open connects to display ("" : $DISPLAY). ctx bounds only the connection.
func Open(ctx context.Context, display string) (*Desktop, error) {
	if display == "" {
		env := Probe()
		if env.Display == "" {
			return nil, fmt.Errorf("%w: %s", ErrNoDisplay, env.Note)
		}
		display = env.Display
	}
	quietOnce.Do(func() { xgb.Logger = log.New(io.Discard, "", 0) })
	type result struct {
		c   *xgb.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := xgb.NewConnDisplay(display)
		ch <- result{c, err}
	}()
	var conn *xgb.Conn
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("%w: cannot connect to X display %s: %v", ErrNoDisplay, display, r.err)
		}
		conn = r.c
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, fmt.Errorf("connect to X display %s: %w", display, ctx.Err())
	}
	d, err := setup(conn, display)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return d, nil
}

func setup(conn *xgb.Conn, display string) (*Desktop, error) {
	// Every extension is set up before the first request that can bring events (the window
	// below), so no event reaches xgb's reader while an Init writes its tables.
	if err := initExtension(conn, "XTEST", xtest.Init); err != nil {
		return nil, fmt.Errorf("X display %s has no XTEST extension, so Tofu cannot send input: %w", display, err)
	}
	s := xproto.Setup(conn).DefaultScreen(conn)
	d := &Desktop{conn: conn, display: display, root: s.Root, width: int(s.WidthInPixels), height: int(s.HeightInPixels),
		depth: s.RootDepth, atoms: map[string]xproto.Atom{}, done: make(chan struct{})}
	d.randr = initExtension(conn, "RANDR", randr.Init) == nil
	hasShm := initExtension(conn, "MIT-SHM", shm.Init) == nil
	if initExtension(conn, "XFIXES", xfixes.Init) == nil {
		// XFixes answers nothing until the client says which version it speaks.
		_, err := xfixes.QueryVersion(conn, 5, 0).Reply()
		d.xfixes = err == nil
	}
	id, err := conn.NewId()
	if err != nil {
		return nil, fmt.Errorf("allocate a window id: %w", err)
	}
	d.own = xproto.Window(id)
	err = xproto.CreateWindowChecked(conn, 0, d.own, d.root, -10, -10, 1, 1, 0, xproto.WindowClassInputOnly, 0,
		xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange}).Check()
	if err != nil {
		return nil, fmt.Errorf("create the selection window: %w", err)
	}
	if d.keys, err = loadKeymap(conn); err != nil {
		return nil, err
	}
	if hasShm {
		d.shm = d.initShm()
	}
	d.clip.init()
	go d.pump()
	return d, nil
}

// Close disconnects; the clipboard Tofu owned is lost.
func (d *Desktop) Close() {
	d.closeShm()
	_ = d.sync()
	d.conn.Close()
	<-d.done
}

// Display is the display name connected to.
func (d *Desktop) Display() string { return d.display }

// Size is the root window's size in pixels.
func (d *Desktop) Size() (w, h int) { return d.width, d.height }

// atom interns name once.
func (d *Desktop) atom(name string) (xproto.Atom, error) {
	d.atomMu.Lock()
	defer d.atomMu.Unlock()
	if a, ok := d.atoms[name]; ok {
		return a, nil
	}
	r, err := xproto.InternAtom(d.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, fmt.Errorf("intern atom %s: %w", name, err)
	}
	d.atoms[name] = r.Atom
	return r.Atom, nil
}

// sync waits until the server has processed every request sent before it: an action returns
// only once its effect has reached the server.
func (d *Desktop) sync() error {
	_, err := xproto.GetInputFocus(d.conn).Reply()
	if err != nil {
		return fmt.Errorf("X server did not answer: %w", err)
	}
	return nil
}

// pump reads the connection's events and hands each to its owner until the connection closes.
func (d *Desktop) pump() {
	defer close(d.done)
	for {
		ev, err := d.conn.WaitForEvent()
		if ev == nil && err == nil {
			d.clip.closed()
			return
		}
		switch e := ev.(type) {
		case xproto.SelectionRequestEvent:
			d.serveSelection(e)
		case xproto.SelectionNotifyEvent:
			d.clip.notify(e)
		case xproto.SelectionClearEvent:
			d.clip.cleared(e)
		case xproto.KeyPressEvent:
			d.stopKeyPressed(e)
		case xproto.ExposeEvent:
			d.exposed(e)
		}
	}
}

// OnStop registers f to run when the user presses the stop key (see GrabStopKey).
func (d *Desktop) OnStop(f func()) (remove func()) {
	d.stopMu.Lock()
	defer d.stopMu.Unlock()
	d.onStop = append(d.onStop, f)
	i := len(d.onStop) - 1
	return func() {
		d.stopMu.Lock()
		defer d.stopMu.Unlock()
		if i < len(d.onStop) {
			d.onStop[i] = nil
		}
	}
}

func (d *Desktop) stopKeyPressed(xproto.KeyPressEvent) {
	d.stopMu.Lock()
	fs := append([]func(){}, d.onStop...)
	d.stopMu.Unlock()
	for _, f := range fs {
		if f != nil {
			f()
		}
	}
}

// clean trims the NULs and spaces X properties carry.
func clean(s string) string { return strings.TrimRight(s, "\x00 ") }
