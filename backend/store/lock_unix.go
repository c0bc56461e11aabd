//go:build unix

package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockDir takes the lock Badger takes on its directory (flock, exclusive), if it is free.
func lockDir(dir string) (func(), bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true // closing releases the lock
}
