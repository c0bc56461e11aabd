package desktop

import (
	"fmt"
	"image"
	"sync"

	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
)

// shmCapture reads the screen through a System V shared memory segment (MIT-SHM): the server
// writes the pixels straight into memory Tofu maps, instead of sending 8 MB over the socket
// for a full HD screen. It works when the server runs on this machine; capture falls back to
// GetImage otherwise.
type shmCapture struct {
	mu  sync.Mutex // one capture at a time uses the segment
	seg shm.Seg
	buf []byte
}

// initShm attaches a segment as large as the screen, or returns nil when the server cannot
// share memory with this process (a remote display, a container). MIT-SHM is set up already.
func (d *Desktop) initShm() *shmCapture {
	if _, err := shm.QueryVersion(d.conn).Reply(); err != nil {
		return nil
	}
	size := d.width * d.height * 4
	id, buf, err := sysvAttach(size)
	if err != nil {
		return nil
	}
	sid, err := d.conn.NewId()
	if err == nil {
		err = shm.AttachChecked(d.conn, shm.Seg(sid), uint32(id), false).Check()
	}
	// Marked for removal now, the segment is freed once both sides detach, even after a crash.
	sysvRemove(id)
	if err != nil {
		sysvDetach(buf)
		return nil
	}
	return &shmCapture{seg: shm.Seg(sid), buf: buf}
}

// captureShm reads r through the segment.
func (d *Desktop) captureShm(r Rect) (*image.RGBA, error) {
	s := d.shm
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := shm.GetImage(d.conn, xproto.Drawable(d.root), int16(r.X), int16(r.Y), uint16(r.W), uint16(r.H),
		0xffffffff, xproto.ImageFormatZPixmap, s.seg, 0).Reply()
	if err != nil {
		return nil, fmt.Errorf("capture the screen (shared memory): %w", err)
	}
	img := image.NewRGBA(image.Rect(0, 0, r.W, r.H))
	if err := d.convert(img, 0, r.W, r.H, s.buf[:r.W*r.H*4]); err != nil {
		return nil, err
	}
	return img, nil
}

// closeShm detaches the segment on both sides.
func (d *Desktop) closeShm() {
	if d.shm == nil {
		return
	}
	d.shm.mu.Lock()
	defer d.shm.mu.Unlock()
	shm.Detach(d.conn, d.shm.seg)
	sysvDetach(d.shm.buf)
}
