//go:build unix

package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// dirLock is the lock Badger takes on its directory (flock, exclusive), held by Tofu.
type dirLock struct{ f *os.File }

// lockDir takes the lock Badger takes on its directory, if it is free.
func lockDir(dir string) (*dirLock, bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return &dirLock{f}, true
}

// unlock releases the lock before closing: a child forked by another goroutine (any exec in
// this process) holds a copy of the descriptor until it execs, and the lock belongs to the
// shared open file, so closing ours alone could leave Badger's own flock refused.
func (l *dirLock) unlock() {
	unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
}
