package mcp

import (
	"io"
	"sync"
	"time"
)

// stdinStall bounds how long a small write to a stdio server's stdin may wait. The pipe holds
// 64 KB, so a message smaller than that waits only once the server has left 64 KB unread. A
// server that sends requests without reading the answers (sampling requests in a loop) had the
// transport start a goroutine for each answer, queued behind the one waiting to write: 18,000 a
// second, until the process ran out of memory, a fatal error that takes the window down. Such a
// server is stuck or hostile: it is stopped, and its error says why. A large message (a tool
// call's long arguments) may wait as long as a busy server takes to read it.
const stdinStall = 2 * time.Second

// pipeBuffer is what a pipe holds on Linux: a write smaller than it waits only on a full pipe.
const pipeBuffer = 64 << 10

// stallWriter is a server's stdin: a write smaller than pipeBuffer that waits past after calls
// stalled, once.
type stallWriter struct {
	w       io.WriteCloser
	after   time.Duration
	stalled func()
	once    sync.Once
}

func (s *stallWriter) Write(p []byte) (int, error) {
	if len(p) < pipeBuffer {
		t := time.AfterFunc(s.after, func() { s.once.Do(s.stalled) })
		defer t.Stop()
	}
	return s.w.Write(p)
}

func (s *stallWriter) Close() error { return s.w.Close() }
