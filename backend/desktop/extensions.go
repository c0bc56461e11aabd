package desktop

import (
	"fmt"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// xgb's extension Init functions write the package-global maps xgb reads events and errors
// through (xgb.NewEventFuncs, NewErrorFuncs) without a lock, while every connection's reader
// goroutine reads them. Two Inits at once are a concurrent map write (a crash), and an Init
// while any connection receives an event is a data race (the race detector caught one in a
// test). So each extension's Init runs once per process, under a lock, and later connections
// only learn the extension's opcode, which lives in the connection (under its own lock).
var extensions struct {
	mu   sync.Mutex
	done map[string]bool
}

// initExtension makes the extension called name usable on c: its Init the first time in
// this process, its opcode alone after that.
func initExtension(c *xgb.Conn, name string, init func(*xgb.Conn) error) error {
	extensions.mu.Lock()
	defer extensions.mu.Unlock()
	if !extensions.done[name] {
		if err := init(c); err != nil {
			return err
		}
		if extensions.done == nil {
			extensions.done = map[string]bool{}
		}
		extensions.done[name] = true
		return nil
	}
	reply, err := xproto.QueryExtension(c, uint16(len(name)), name).Reply()
	if err != nil {
		return err
	}
	if !reply.Present {
		return fmt.Errorf("no extension named %s could be found on the server", name)
	}
	c.ExtLock.Lock()
	c.Extensions[name] = reply.MajorOpcode
	c.ExtLock.Unlock()
	return nil
}
