package store

import (
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// lockedRetry bounds how long Open waits for a directory lock that a child of this very
// process still holds. Badger releases its lock by closing the directory, and the lock belongs
// to the open file, which a child forked meanwhile by any goroutine (every exec) shares until
// it execs: for that moment, a store closed and opened again in one process is "in use". The
// window lasts milliseconds; another process holding the database holds it for good and is
// reported after this delay.
var lockedRetry = time.Second

// openBadger opens the database, retrying while the directory lock is refused, for at most
// lockedRetry.
func openBadger(opts badger.Options) (*badger.DB, error) {
	deadline := time.Now().Add(lockedRetry)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		db, err := badger.Open(opts)
		if err == nil || !isLocked(err) || time.Now().After(deadline) {
			return db, err
		}
		time.Sleep(wait)
	}
}

func isLocked(err error) bool {
	return strings.Contains(err.Error(), "Cannot acquire directory lock")
}
