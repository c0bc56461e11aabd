//go:build !windows

package desktop

import "golang.org/x/sys/unix"

// sysvAttach creates a private System V segment of size bytes and maps it.
func sysvAttach(size int) (id int, buf []byte, err error) {
	id, err = unix.SysvShmGet(unix.IPC_PRIVATE, size, unix.IPC_CREAT|0o600)
	if err != nil {
		return 0, nil, err
	}
	buf, err = unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		sysvRemove(id)
		return 0, nil, err
	}
	return id, buf, nil
}

// sysvRemove marks the segment for removal once every process has detached it.
func sysvRemove(id int) { unix.SysvShmCtl(id, unix.IPC_RMID, nil) }

// sysvDetach unmaps the segment from this process.
func sysvDetach(buf []byte) { unix.SysvShmDetach(buf) }
