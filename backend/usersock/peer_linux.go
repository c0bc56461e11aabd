package usersock

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the uid of the process at the other end (SO_PEERCRED: as it was at connect).
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uid int
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		var cred *unix.Ucred
		cred, gerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if cred != nil {
			uid = int(cred.Uid)
		}
	}); err != nil {
		return 0, err
	}
	return uid, gerr
}
