package desktop

import (
	"encoding/binary"
	"fmt"
	"image"

	"github.com/jezek/xgb/xproto"
)

// Shot is a screenshot: the pixels and where they are on the screen.
type Shot struct {
	Image *image.RGBA
	// Frame maps the image's pixels to screen coordinates.
	Frame Frame
}

// Frame maps coordinates in a (possibly downscaled) image back to the screen: a point (x, y)
// of the image is (X + x/Scale, Y + y/Scale) on the screen.
type Frame struct {
	X     int     `json:"x"`
	Y     int     `json:"y"`
	Scale float64 `json:"scale"` // image pixels per screen pixel (1: full size)
	W     int     `json:"w"`     // the image's size
	H     int     `json:"h"`
}

// ToScreen maps a point of the image to the screen.
func (f Frame) ToScreen(x, y int) (sx, sy int) {
	s := f.Scale
	if s <= 0 {
		s = 1
	}
	return f.X + int(float64(x)/s+0.5), f.Y + int(float64(y)/s+0.5)
}

// FromScreen maps a screen point into the image (it may fall outside it).
func (f Frame) FromScreen(sx, sy int) (x, y int) {
	s := f.Scale
	if s <= 0 {
		s = 1
	}
	return int(float64(sx-f.X)*s + 0.5), int(float64(sy-f.Y)*s + 0.5)
}

// Rect is a rectangle on the screen.
type Rect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// clip intersects r with the screen.
func (r Rect) clip(w, h int) Rect {
	x0, y0, x1, y1 := max(r.X, 0), max(r.Y, 0), min(r.X+r.W, w), min(r.Y+r.H, h)
	if x1 <= x0 || y1 <= y0 {
		return Rect{}
	}
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

// Screenshot captures the whole screen.
func (d *Desktop) Screenshot() (Shot, error) {
	return d.Region(Rect{0, 0, d.width, d.height})
}

// Region captures a rectangle of the screen (clipped to it).
func (d *Desktop) Region(r Rect) (Shot, error) {
	c := r.clip(d.width, d.height)
	if c.W == 0 {
		return Shot{}, fmt.Errorf("the region %dx%d+%d+%d is outside the %dx%d screen", r.W, r.H, r.X, r.Y, d.width, d.height)
	}
	img, err := d.capture(c)
	if err != nil {
		return Shot{}, err
	}
	return Shot{Image: img, Frame: Frame{X: c.X, Y: c.Y, Scale: 1, W: c.W, H: c.H}}, nil
}

// WindowShot captures what the screen shows of a window (its client area, as listed by
// Windows): windows above it are captured too, so focus or raise it first.
func (d *Desktop) WindowShot(id uint32) (Shot, error) {
	g, err := d.geometry(xproto.Window(id))
	if err != nil {
		return Shot{}, err
	}
	return d.Region(g)
}

// capture reads r of the root window with GetImage, in strips that keep each reply under the
// server's maximum request size, and converts the server's pixel order to RGBA.
func (d *Desktop) capture(r Rect) (*image.RGBA, error) {
	if d.shm != nil {
		return d.captureShm(r)
	}
	img := image.NewRGBA(image.Rect(0, 0, r.W, r.H))
	// 4 MiB per reply keeps every reply small enough for any server and the copies short.
	rows := max(1, (4<<20)/(r.W*4))
	for y := 0; y < r.H; y += rows {
		h := min(rows, r.H-y)
		rep, err := xproto.GetImage(d.conn, xproto.ImageFormatZPixmap, xproto.Drawable(d.root),
			int16(r.X), int16(r.Y+y), uint16(r.W), uint16(h), 0xffffffff).Reply()
		if err != nil {
			return nil, fmt.Errorf("capture the screen: %w", err)
		}
		if err := d.convert(img, y, r.W, h, rep.Data); err != nil {
			return nil, err
		}
	}
	return img, nil
}

// convert writes h rows of ZPixmap data into img at row y. Depths 24 and 32 use 4 bytes per
// pixel in the server's byte order (BGRX on every little-endian server seen).
func (d *Desktop) convert(img *image.RGBA, y, w, h int, data []byte) error {
	if d.depth != 24 && d.depth != 32 {
		return fmt.Errorf("the screen has depth %d; Tofu captures 24- and 32-bit screens only", d.depth)
	}
	if len(data) < w*h*4 {
		return fmt.Errorf("the X server sent %d bytes for a %dx%d strip", len(data), w, h)
	}
	rows(h, func(r0, r1 int) {
		dst := img.Pix[(y+r0)*img.Stride : (y+r1)*img.Stride]
		src := data[r0*w*4 : r1*w*4]
		for i := 0; i < len(dst); i += 4 {
			// Little-endian BGRX to RGBA, one 32-bit word at a time.
			v := binary.LittleEndian.Uint32(src[i:])
			binary.LittleEndian.PutUint32(dst[i:], v>>16&0xff|v&0xff00|(v&0xff)<<16|0xff000000)
		}
	})
	return nil
}
