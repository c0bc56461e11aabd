//go:build !unix

package usersock

import "errors"

// Listener is not available here: forwarding needs Unix sockets with owner checks.
type Listener struct{ Refused func(error) }

// ErrNoListener means nothing listens at the path.
var ErrNoListener = errors.New("no listener")

// ErrOtherUser is a peer running as another user.
var ErrOtherUser = errors.New("connection from another user refused")

// Listen is unsupported on this platform.
func Listen(string) (*Listener, error) { return nil, errors.ErrUnsupported }

// RemoveStale has nothing to remove on this platform.
func RemoveStale(string) error { return nil }

// Dial finds no listener on this platform.
func Dial(string) (*Conn, error) { return nil, ErrNoListener }

// Path is empty on this platform.
func (l *Listener) Path() string { return "" }

// Accept is unsupported on this platform.
func (l *Listener) Accept() (*Conn, error) { return nil, errors.ErrUnsupported }

// Close does nothing on this platform.
func (l *Listener) Close() error { return nil }
