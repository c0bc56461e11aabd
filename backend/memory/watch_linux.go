package memory

import (
	"encoding/binary"
	"errors"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// folderWatch knows which memory folders changed since their last scan, through inotify:
// a search then skips listing and stat-ing every record of a folder that did not (with 10,000
// records, the scan is most of a query). Events are read without blocking at each search: the
// kernel queues them as the write happens, so a record edited by hand is seen by the next
// search, never later.
type folderWatch struct {
	mu   sync.Mutex
	fd   int // -1: none (inotify unavailable): every folder is scanned every time
	byWD map[int32]string
	wd   map[string]int32
	gen  map[string]uint64 // bumped by every event in the folder
	all  uint64            // bumped when the queue overflowed: every folder changed
}

func newFolderWatch() *folderWatch {
	w := &folderWatch{fd: -1, byWD: map[int32]string{}, wd: map[string]int32{}, gen: map[string]uint64{}}
	if fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC); err == nil {
		w.fd = fd
		runtime.AddCleanup(w, func(fd int) { unix.Close(fd) }, fd)
	}
	return w
}

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW

// unchanged reports whether dir is watched and nothing happened in it since watch(dir)
// returned stamp.
func (w *folderWatch) unchanged(dir string, stamp uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 || stamp == 0 {
		return false
	}
	w.drain()
	_, ok := w.wd[dir]
	return ok && w.stamp(dir) == stamp
}

// watch is called just before dir is scanned and returns its stamp: from now on, a change in
// dir changes the stamp. A folder that does not exist yet is not watched (0: scanned every
// time, which is cheap).
func (w *folderWatch) watch(dir string) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return 0
	}
	w.drain()
	if _, ok := w.wd[dir]; !ok {
		wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
		if err != nil {
			return 0
		}
		w.wd[dir], w.byWD[int32(wd)] = int32(wd), dir
		w.gen[dir]++ // a folder watched again may have changed unseen
	}
	return w.stamp(dir)
}

// stamp combines the folder's and the overflow's generations (never 0).
func (w *folderWatch) stamp(dir string) uint64 { return w.gen[dir]<<20 + w.all + 1 }

// drain reads the queued events and marks their folders dirty. The caller holds mu.
func (w *folderWatch) drain() {
	var buf [16 << 10]byte
	for {
		n, err := unix.Read(w.fd, buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if n <= 0 || err != nil {
			return // EAGAIN: nothing more
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			size := int(binary.NativeEndian.Uint32(buf[off+12:]))
			off += unix.SizeofInotifyEvent + size
			if mask&unix.IN_Q_OVERFLOW != 0 {
				w.all++
				continue
			}
			dir, ok := w.byWD[wd]
			if !ok {
				continue
			}
			w.gen[dir]++
			if mask&unix.IN_IGNORED != 0 { // the folder went away: watch it again when it is back
				delete(w.byWD, wd)
				delete(w.wd, dir)
			}
		}
	}
}
