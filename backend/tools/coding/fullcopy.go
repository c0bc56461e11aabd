package coding

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// A command's output beyond OutputCap used to be stored for read_result as the 30,000
// characters the model was shown, under a note saying "full output stored": the end marker a
// model then grepped for was not there. The whole output is kept as it comes (in memory up to
// fullInMemory, then in a temporary file) up to FullOutputMax, and handed to the result's Full
// for L0 to store.
const (
	// FullOutputMax bounds what is kept of one command's output: a runaway log must not fill
	// the disk or Tofu's store. Past it the first FullOutputMax-jobRetention bytes and the last
	// ones (still in the output window) are kept, with a note of what was dropped between.
	FullOutputMax = 64 << 20
	fullInMemory  = 256 << 10
)

// fullCopy is the whole output of one foreground command; its methods accept a nil copy.
type fullCopy struct {
	mu    sync.Mutex
	dir   string // for the file ("" : the system's temporary directory)
	max   int64  // bytes kept in all
	limit int64  // bytes kept from the start
	mem   []byte
	f     *os.File
	n     int64 // bytes kept
	lost  bool  // the file could not be written: only the capped output remains
}

// newFullCopy keeps up to max bytes: the start, and room for the end the output window holds.
func newFullCopy(dir string, max int64) *fullCopy {
	return &fullCopy{dir: dir, max: max, limit: max - min(jobRetention, max/4)}
}

// write keeps p, up to the limit; a failing disk loses only the copy, never the output.
func (c *fullCopy) write(p []byte) {
	if c == nil || len(p) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost || c.n >= c.limit {
		return
	}
	p = p[:min(int64(len(p)), c.limit-c.n)]
	if c.f == nil && int64(len(c.mem)+len(p)) > fullInMemory {
		f, err := os.CreateTemp(c.dir, "tofu-full-output-*")
		if err != nil {
			c.lost = true
			return
		}
		os.Remove(f.Name()) // nothing to clean up after a crash: the open file is all there is
		if _, err := f.Write(c.mem); err != nil {
			f.Close()
			c.lost = true
			return
		}
		c.f, c.mem = f, nil
	}
	if c.f == nil {
		c.mem = append(c.mem, p...)
	} else if _, err := c.f.Write(p); err != nil {
		c.lost = true
		return
	}
	c.n += int64(len(p))
}

// text is the whole output of the command whose capped output is out, cleaned as the shown
// output is; dropped is how many bytes the bound left out of it (their place is marked).
// ok is false when the copy was lost.
func (c *fullCopy) text(out *outBuf) (s string, dropped int64, ok bool) {
	if c == nil {
		return "", 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lost {
		return "", 0, false
	}
	head := c.mem
	if c.f != nil {
		head = make([]byte, c.n)
		if _, err := c.f.ReadAt(head, 0); err != nil && err != io.EOF {
			return "", 0, false
		}
	}
	out.mu.Lock()
	total, window := out.total, out.data
	rest := total - c.n // bytes after the kept head
	tail := window[max(0, int64(len(window))-min(rest, c.max-c.limit)):]
	out.mu.Unlock()
	dropped = rest - int64(len(tail))
	if dropped <= 0 {
		return clean(append(head, tail...)), 0, true
	}
	return clean(head) + fmt.Sprintf("\n[… %d bytes of output not stored: the stored copy is bounded at %s …]\n", dropped, sizeText(c.max)) + clean(tail), dropped, true
}

// close removes the file.
func (c *fullCopy) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
	c.mem = nil
}

// sizeText is a bound in MB, or KB below one MB.
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d KB", n>>10)
}
