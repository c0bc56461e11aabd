//go:build darwin || freebsd

package usersock

import "golang.org/x/sys/unix"

// credUID reads LOCAL_PEERCRED: the peer's uid as it was at connect.
func credUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, err
	}
	return int(cred.Uid), nil
}
