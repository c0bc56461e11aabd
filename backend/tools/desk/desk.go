// Package desk offers the desktop (backend/desktop) to the model as a few deferred tools:
// screenshot, tree (the accessibility view), windows, input, clipboard and open. Input goes through the approval service per
// app (tools.AccessDesktop), launching always asks a person, and while a turn drives the
// desktop a red strip says so and ctrl+alt+End stops the turn.
package desk

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"image/jpeg"
	"image/png"
	"io"
	"sync"

	"github.com/tofu-research/tofu/backend/desktop"
	"github.com/tofu-research/tofu/backend/desktop/atspi"
	"github.com/tofu-research/tofu/backend/tools"
)

//go:embed *.md
var docs embed.FS

func doc(name string) string {
	b, err := docs.ReadFile(name + ".md")
	if err != nil {
		panic("desk: missing description " + name + ".md")
	}
	return string(b)
}

// Names are the desktop tools, in the order they are offered.
var Names = []string{"desktop_screenshot", "desktop_tree", "desktop_windows", "desktop_input", "desktop_clipboard", "desktop_open"}

// Blobs keeps the screenshots a session's events refer to (the store).
type Blobs interface {
	PutBlob(key string, r io.Reader) (int64, error)
}

// Options wire the desktop tools of one session's turn.
type Options struct {
	Desktop *desktop.Manager
	Session string
	// MaxWidth bounds the screenshots sent to the model (0: 1280); coordinates in them are
	// mapped back to the screen.
	MaxWidth int
	// Blobs, when set, keeps each screenshot under a key its result's Meta names.
	Blobs Blobs
	// Stop interrupts the session's turn (the stop key was pressed).
	Stop func()
	// Launch starts a program detached from Tofu (nil: exec, in its own session).
	Launch func(argv []string) error
}

// Meta is what a desktop tool's result carries for the window and the audit (never sent to
// the model).
type Meta struct {
	Action string `json:"action"`
	// Screenshot is the blob key of the screenshot this call took, or whose frame its
	// coordinates were given in.
	Screenshot string `json:"screenshot,omitempty"`
	// X, Y are where the action landed on the screen; ImageX, ImageY the point the model
	// named in the screenshot, and Frame how one maps to the other.
	X      *int           `json:"x,omitempty"`
	Y      *int           `json:"y,omitempty"`
	ImageX *int           `json:"image_x,omitempty"`
	ImageY *int           `json:"image_y,omitempty"`
	Frame  *desktop.Frame `json:"frame,omitempty"`
	Window string         `json:"window,omitempty"` // the app acted on (its class)
	// Thumbnail is the screen after the action, 320 pixels wide (JPEG); ScreenW and ScreenH
	// are the screen's size, so the window's card can mark X, Y on it.
	Thumbnail []byte `json:"thumbnail,omitempty"`
	ScreenW   int    `json:"screen_w,omitempty"`
	ScreenH   int    `json:"screen_h,omitempty"`
}

// thumbnail adds a small picture of the whole screen to m, for the window's card (a failure
// leaves it out: the card is an aid, the action is done).
func thumbnail(d *desktop.Desktop, m *Meta) {
	shot, err := d.Screenshot()
	if err != nil {
		return
	}
	small := shot.Downscale(320, 0)
	var buf bytes.Buffer
	if jpeg.Encode(&buf, small.Image, &jpeg.Options{Quality: 70}) == nil {
		m.Thumbnail = buf.Bytes()
		m.ScreenW, m.ScreenH = d.Size()
	}
}

// Add puts the desktop tools into reg, deferred until tool_search finds them or the model
// calls one. release hides the indicator and forgets the stop key's hook.
func Add(reg *tools.Registry, o Options) (release func(), err error) {
	if o.MaxWidth <= 0 {
		o.MaxWidth = 1280
	}
	b := &box{o: o}
	for _, t := range []tools.Tool{b.screenshot(), b.tree(), b.windows(), b.input(), b.clipboard(), b.open()} {
		if err := reg.Add(t); err != nil {
			return nil, err
		}
	}
	reg.DeferFamily("see and use the desktop: screen, windows, mouse, keys, clipboard, apps", Names...)
	return b.release, nil
}

// box is the tools' state for one turn: the frame of the last screenshot (coordinates the
// model gives are in it) and whether the turn has taken the desktop.
type box struct {
	o Options

	mu       sync.Mutex
	frame    *desktop.Frame
	shotKey  string
	shots    int
	d        *desktop.Desktop
	unhook   func()
	released bool
	// The last accessibility snapshot (refs point into it), its window's class, and the bus.
	a11y      *atspi.Tree
	a11yClass string
	a11yBus   *atspi.Bus
}

// desk connects (first use in the turn: shows the indicator and hooks the stop key).
func (b *box) desk(ctx context.Context) (*desktop.Desktop, error) {
	d, err := b.o.Desktop.Get(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.d != d && !b.released {
		b.d = d
		if b.o.Stop != nil {
			b.unhook = d.OnStop(b.o.Stop)
		}
		msg := "Tofu's agent is controlling this desktop - " + desktop.StopKey + " stops it"
		if err := b.o.Desktop.StopKeyError(); err != nil {
			msg = "Tofu's agent is controlling this desktop - press Stop in Tofu to stop it"
		}
		_ = d.ShowIndicator(msg) // a missing strip must not stop the work
	}
	return d, nil
}

func (b *box) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.released = true
	if b.unhook != nil {
		b.unhook()
	}
	if b.d != nil {
		b.d.HideIndicator()
	}
	if b.a11yBus != nil {
		b.a11yBus.Close()
		b.a11yBus = nil
	}
}

// toScreen maps a point the model named (in the last screenshot's pixels) to the screen.
func (b *box) toScreen(x, y int) (sx, sy int, f *desktop.Frame, key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.frame == nil {
		return x, y, nil, ""
	}
	sx, sy = b.frame.ToScreen(x, y)
	fr := *b.frame
	return sx, sy, &fr, b.shotKey
}

// remember keeps a screenshot's frame for the coordinates that follow, and its PNG as a blob.
func (b *box) remember(callID string, shot desktop.Shot, pngBytes []byte) string {
	b.mu.Lock()
	b.shots++
	n := b.shots
	f := shot.Frame
	b.frame = &f
	b.mu.Unlock()
	key := ""
	if b.o.Blobs != nil {
		k := fmt.Sprintf("desktop/%s/%s-%d.png", b.o.Session, callID, n)
		if _, err := b.o.Blobs.PutBlob(k, bytes.NewReader(pngBytes)); err == nil {
			key = k
		}
	}
	b.mu.Lock()
	b.shotKey = key
	b.mu.Unlock()
	return key
}

func encodePNG(shot desktop.Shot) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, shot.Image); err != nil {
		return nil, fmt.Errorf("encode the screenshot: %w", err)
	}
	return buf.Bytes(), nil
}

// failed turns an error into the model's result, or the turn's end when ctx is done.
func failed(ctx context.Context, err error) (tools.Result, error) {
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	return tools.Errorf(err.Error()), nil
}
