// Package usersock is a local command channel only its owner can use: a Unix socket in a
// private directory (0700, the socket 0600), peers checked by uid where the kernel says
// (SO_PEERCRED, LOCAL_PEERCRED), and length-prefixed JSON frames with a size limit.
package usersock

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// ErrFrameTooLarge is a frame whose declared length is over the reader's limit. Nothing of it
// is read: a length prefix alone must not make the reader allocate.
var ErrFrameTooLarge = errors.New("frame too large")

// ErrQueueFull means the peer stopped reading while frames kept coming: the connection is
// closed rather than hold the sender (which may be the store's publisher) or grow without end.
var ErrQueueFull = errors.New("the peer is not reading: too much output queued")

// DefaultReadLimit bounds one received frame unless SetReadLimit says otherwise.
const DefaultReadLimit = 1 << 20

// DefaultQueueLimit bounds the bytes waiting to be written to one peer.
const DefaultQueueLimit = 64 << 20

// Conn is one end of a connection: frames are JSON values, each written as a 4-byte big-endian
// length and the bytes. Send never blocks (a writer goroutine drains a bounded queue); Recv
// reads one frame at a time from one goroutine.
type Conn struct {
	c          net.Conn
	limit      int
	queueLimit int

	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte
	queued  int
	writing bool  // a frame is being written
	closing bool  // Close was called: queued frames are dropped
	err     error // set once writing failed; later Sends return it
	once    sync.Once
}

func newConn(c net.Conn) *Conn {
	x := &Conn{c: c, limit: DefaultReadLimit, queueLimit: DefaultQueueLimit}
	x.cond = sync.NewCond(&x.mu)
	go x.writer()
	return x
}

// SetReadLimit sets the largest frame Recv accepts.
func (x *Conn) SetReadLimit(n int) { x.limit = n }

// Send queues v as one frame.
func (x *Conn) Send(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the text as written: && stays &&
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case x.err != nil:
		return x.err
	case x.closing:
		return net.ErrClosed
	case x.queued+len(b) > x.queueLimit:
		x.err = ErrQueueFull
		go x.Close()
		return x.err
	}
	x.queue = append(x.queue, b)
	x.queued += len(b)
	x.cond.Broadcast()
	return nil
}

func (x *Conn) writer() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for {
		for len(x.queue) == 0 && !x.closing && x.err == nil {
			x.cond.Wait()
		}
		if x.closing || x.err != nil {
			return
		}
		b := x.queue[0]
		x.queue = x.queue[1:]
		x.queued -= len(b)
		x.writing = true
		x.mu.Unlock()
		err := writeFrame(x.c, b)
		x.mu.Lock()
		x.writing = false
		if err != nil && x.err == nil {
			x.err = fmt.Errorf("write frame: %w", err)
		}
		x.cond.Broadcast()
	}
}

// Flush waits until every queued frame is written, for at most d (a peer that stopped
// reading cannot hold it longer), then closes the connection.
func (x *Conn) Flush(d time.Duration) {
	x.c.SetWriteDeadline(time.Now().Add(d))
	x.mu.Lock()
	for (len(x.queue) > 0 || x.writing) && x.err == nil && !x.closing {
		x.cond.Wait()
	}
	x.mu.Unlock()
	x.Close()
}

// Recv reads one frame into v. A frame over the limit is ErrFrameTooLarge (and the connection
// is then out of step: close it).
func (x *Conn) Recv(v any) error {
	b, err := readFrame(x.c, x.limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode frame: %w", err)
	}
	return nil
}

// Close closes the connection; queued frames not yet written are dropped.
func (x *Conn) Close() error {
	var err error
	x.once.Do(func() {
		x.mu.Lock()
		x.closing = true
		x.queue, x.queued = nil, 0
		x.cond.Broadcast()
		x.mu.Unlock()
		err = x.c.Close()
	})
	return err
}

// Raw is the underlying connection (tests write malformed frames through it).
func (x *Conn) Raw() net.Conn { return x.c }

func writeFrame(w io.Writer, b []byte) error {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

func readFrame(r io.Reader, limit int) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if uint64(size) > uint64(limit) {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrFrameTooLarge, size, limit)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("read frame: %w", err)
	}
	return b, nil
}
