package desktop

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// dragStep is the time between the motions of a drag (one frame at 60 Hz).
const dragStep = 16 * time.Millisecond

// Mouse buttons.
const (
	ButtonLeft   = 1
	ButtonMiddle = 2
	ButtonRight  = 3
)

// fake sends one XTEST event (KeyPress 2, KeyRelease 3, ButtonPress 4, ButtonRelease 5,
// MotionNotify 6).
func (d *Desktop) fake(typ, detail byte, x, y int) {
	xtest.FakeInput(d.conn, typ, detail, 0, d.root, int16(x), int16(y), 0)
}

func (d *Desktop) inside(x, y int) error {
	if x < 0 || y < 0 || x >= d.width || y >= d.height {
		return fmt.Errorf("(%d, %d) is outside the %dx%d screen", x, y, d.width, d.height)
	}
	return nil
}

// Pointer is where the mouse pointer is.
func (d *Desktop) Pointer() (x, y int, err error) {
	r, err := xproto.QueryPointer(d.conn, d.root).Reply()
	if err != nil {
		return 0, 0, fmt.Errorf("read the pointer: %w", err)
	}
	return int(r.RootX), int(r.RootY), nil
}

// Move puts the pointer at (x, y) on the screen.
func (d *Desktop) Move(x, y int) error {
	if err := d.inside(x, y); err != nil {
		return err
	}
	d.inputMu.Lock()
	defer d.inputMu.Unlock()
	d.fake(xproto.MotionNotify, 0, x, y)
	return d.sync()
}

// Click moves to (x, y) and clicks button count times (2: a double click).
func (d *Desktop) Click(x, y, button, count int) error {
	if err := d.inside(x, y); err != nil {
		return err
	}
	if button < 1 || button > 9 {
		return fmt.Errorf("mouse button %d does not exist (1 left, 2 middle, 3 right)", button)
	}
	d.inputMu.Lock()
	defer d.inputMu.Unlock()
	d.fake(xproto.MotionNotify, 0, x, y)
	for range max(count, 1) {
		d.fake(xproto.ButtonPress, byte(button), x, y)
		d.fake(xproto.ButtonRelease, byte(button), x, y)
	}
	return d.sync()
}

// Drag presses the left button at (x0, y0), moves to (x1, y1) in steps (window managers and
// toolkits start a drag only after seeing motion), and releases it there.
func (d *Desktop) Drag(ctx context.Context, x0, y0, x1, y1 int) error {
	if err := d.inside(x0, y0); err != nil {
		return err
	}
	if err := d.inside(x1, y1); err != nil {
		return err
	}
	d.inputMu.Lock()
	defer d.inputMu.Unlock()
	d.fake(xproto.MotionNotify, 0, x0, y0)
	d.fake(xproto.ButtonPress, ButtonLeft, x0, y0)
	if err := d.sync(); err != nil {
		return err
	}
	const steps = 10
	for i := 1; i <= steps; i++ {
		// A frame's time between steps, as a hand moves: window managers and toolkits read
		// the press and start their drag before the motion that follows it.
		select {
		case <-ctx.Done():
		case <-time.After(dragStep):
		}
		if ctx.Err() != nil {
			break // still release the button below
		}
		d.fake(xproto.MotionNotify, 0, x0+(x1-x0)*i/steps, y0+(y1-y0)*i/steps)
		if err := d.sync(); err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
	case <-time.After(dragStep):
	}
	d.fake(xproto.ButtonRelease, ButtonLeft, x1, y1)
	if err := d.sync(); err != nil {
		return err
	}
	return ctx.Err()
}

// Scroll turns the wheel at (x, y): dy > 0 scrolls down, dy < 0 up, dx right or left, one
// notch per unit.
func (d *Desktop) Scroll(x, y, dx, dy int) error {
	if err := d.inside(x, y); err != nil {
		return err
	}
	d.inputMu.Lock()
	defer d.inputMu.Unlock()
	d.fake(xproto.MotionNotify, 0, x, y)
	notch := func(button byte, n int) {
		for range n {
			d.fake(xproto.ButtonPress, button, x, y)
			d.fake(xproto.ButtonRelease, button, x, y)
		}
	}
	if dy > 0 {
		notch(5, dy)
	} else {
		notch(4, -dy)
	}
	if dx > 0 {
		notch(7, dx)
	} else {
		notch(6, -dx)
	}
	return d.sync()
}

// ParseButton reads a button name: left, middle or right (or 1-9).
func ParseButton(s string) (int, error) {
	switch strings.ToLower(s) {
	case "", "left":
		return ButtonLeft, nil
	case "middle":
		return ButtonMiddle, nil
	case "right":
		return ButtonRight, nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= 9 {
		return n, nil
	}
	return 0, fmt.Errorf("unknown mouse button %q (left, middle or right)", s)
}
