//go:build linux || darwin || freebsd

package usersock

import "net"

// peerUID is the uid of the process at the other end, as the kernel's peer credentials say
// (credUID is this system's call).
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uid int
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, cerr = credUID(int(fd)) }); err != nil {
		return 0, err
	}
	return uid, cerr
}
