package usersock

import "golang.org/x/sys/unix"

// credUID reads SO_PEERCRED: the peer's uid as it was at connect.
func credUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	return int(cred.Uid), nil
}
