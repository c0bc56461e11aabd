//go:build !unix

package store

// lockDir cannot tell here whether another process uses the directory: nothing is cleaned.
func lockDir(string) (func(), bool) { return nil, false }
