//go:build !unix

package store

// dirLock: nothing to hold where lockDir cannot tell.
type dirLock struct{}

// lockDir cannot tell here whether another process uses the directory: nothing is cleaned.
func lockDir(string) (*dirLock, bool) { return nil, false }

func (*dirLock) unlock() {}
