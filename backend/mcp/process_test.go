package mcp

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// A server writing without a newline made the transport grow one line until the process ran
// out of memory (fatal; `cat /dev/zero` as a server took 4 GB in seconds). Its stdout ends
// with errMessageTooLarge past maxMessage, and says so in what the server printed; a line
// just under the bound passes.
func TestStdoutLineIsBounded(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		defer w.Close()
		chunk := bytes.Repeat([]byte{'a'}, 1<<20)
		for range maxMessage >> 20 {
			w.Write(chunk)
		}
		w.Write([]byte("\n")) // exactly maxMessage bytes, then the end of the line
		for range (maxMessage >> 20) + 2 {
			if _, err := w.Write(chunk); err != nil {
				return // the reader stopped
			}
		}
	}()
	watch := &junkWatch{r: r, junk: newTail(2 << 10), eof: make(chan struct{})}
	buf := make([]byte, 64<<10)
	var read int
	for {
		n, err := watch.Read(buf)
		read += n
		if err != nil {
			if !errors.Is(err, errMessageTooLarge) {
				t.Fatalf("after %d bytes: %v, want errMessageTooLarge", read, err)
			}
			break
		}
	}
	if read <= maxMessage || read > 2*maxMessage+1 {
		t.Errorf("read %d bytes: want the first line whole and the second cut at the bound", read)
	}
	if !strings.Contains(watch.junk.String(), "longer than 64 MB") {
		t.Errorf("what the server printed: %q", watch.junk.String())
	}
	if _, err := watch.Read(buf); !errors.Is(err, errMessageTooLarge) {
		t.Errorf("a read after the bound: %v", err)
	}
	select {
	case <-watch.eof:
	default:
		t.Error("eof not closed: explain() would wait for it")
	}
}
