//go:build unix

package usersock

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Listener accepts connections from processes of its own user only.
type Listener struct {
	l    *net.UnixListener
	path string
	fi   os.FileInfo // the socket as bound, to remove only our own on Close
	uid  int         // the peers allowed: this process's effective uid
	// Refused, when set, hears of every connection refused (another uid, no credentials).
	Refused func(err error)
	once    sync.Once
}

// Listen binds a socket at path, mode 0600, in a directory that it makes private (0700) and
// that must belong to the user. Whatever is at path is removed first: the caller guarantees no
// other listener can own it (Tofu holds the database lock of the directory), so it is stale.
// The socket is bound under a temporary name, made 0600 and renamed into place, so it is
// never reachable with looser permissions whatever the umask.
func Listen(path string) (*Listener, error) {
	dir := filepath.Dir(path)
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	if err := RemoveStale(path); err != nil {
		return nil, err
	}
	var tail [6]byte
	rand.Read(tail[:])
	tmp := filepath.Join(dir, ".sock-"+hex.EncodeToString(tail[:]))
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(false) // the bound name moves; Close removes the final one
	fail := func(err error) (*Listener, error) {
		l.Close()
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fail(fmt.Errorf("make %s private: %w", path, err))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(fmt.Errorf("place socket %s: %w", path, err))
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return fail(err)
	}
	return &Listener{l: l, path: path, fi: fi, uid: os.Geteuid()}, nil
}

// privateDir checks that dir belongs to the user and closes it to everyone else.
func privateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory", dir)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to you (%d)", dir, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make %s private: %w", dir, err)
		}
	}
	return nil
}

// RemoveStale removes a socket or symbolic link left at path (a listener that died). Anything
// else there is an error: it is not ours to delete.
func RemoveStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&(fs.ModeSocket|fs.ModeSymlink) == 0 {
		return fmt.Errorf("%s exists and is not a socket; remove it", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	return nil
}

// Path is where the listener's socket is.
func (l *Listener) Path() string { return l.path }

// Accept waits for the next connection from the user's own processes; others are closed
// unread (and reported to Refused).
func (l *Listener) Accept() (*Conn, error) {
	for {
		c, err := l.l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if err := checkPeer(c, l.uid); err != nil {
			c.Close()
			if l.Refused != nil {
				l.Refused(err)
			}
			continue
		}
		return newConn(c), nil
	}
}

// Close stops listening and removes the socket, if the path still holds ours.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		err = l.l.Close()
		if fi, e := os.Lstat(l.path); e == nil && os.SameFile(fi, l.fi) {
			os.Remove(l.path)
		}
	})
	return err
}

// ErrNoListener means nothing listens at the path: no socket, or a stale one (connection
// refused).
var ErrNoListener = errors.New("no listener")

// Dial connects to the socket at path. It refuses a path that is a symbolic link, not a socket
// or not the user's own, and a listener running as another uid (where the kernel says).
func Dial(path string) (*Conn, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoListener, path)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symbolic link, not a socket: refusing to follow it", path)
	case fi.Mode()&fs.ModeSocket == 0:
		return nil, fmt.Errorf("%s is not a socket", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return nil, fmt.Errorf("the socket %s does not belong to you", path)
	}
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s (stale socket)", ErrNoListener, path)
	}
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", path, err)
	}
	// The path was checked before connecting; the peer's uid closes the gap (a socket
	// swapped in between).
	if err := checkPeer(c, os.Geteuid()); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return newConn(c), nil
}

// checkPeer refuses a peer whose uid is not want. Where the kernel cannot say, the socket's
// 0600 mode in a 0700 directory is the only guard.
func checkPeer(c *net.UnixConn, want int) error {
	uid, err := peerUID(c)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if uid != want {
		return fmt.Errorf("%w: peer uid %d, not %d", ErrOtherUser, uid, want)
	}
	return nil
}

// ErrOtherUser is a peer running as another user.
var ErrOtherUser = errors.New("connection from another user refused")
