package coding

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// spoolMax bounds a command's output copy on disk: past it the file starts over, so it holds
// the latest output (where errors usually are), between spoolMax/2 and spoolMax bytes of it.
const spoolMax = 1 << 20

// spool copies a foreground command's output to a file as it comes (no fsync: it only has to
// survive Tofu's process, not the machine), so that a Tofu restarted after a crash can tell
// the model what the command printed before it was stopped. The file is removed once the
// command's result exists. All methods accept a nil spool.
type spool struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	n       int64 // bytes in the file
	dropped int64 // bytes of output no longer in the file
}

func spoolPath(dir, marker string) string {
	if dir == "" {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "tofu-output-"+marker)
}

// open creates the file; until then (or when it cannot be created) nothing is copied.
func (s *spool) open() {
	if s == nil {
		return
	}
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.f = f
	s.mu.Unlock()
}

// write appends p; a failing disk only loses the copy, never the command's output.
func (s *spool) write(p []byte) {
	if s == nil || len(p) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return
	}
	if s.n+int64(len(p)) > spoolMax && s.n > 0 {
		s.dropped += s.n - s.headerLen()
		if s.f.Truncate(0) != nil {
			return
		}
		hdr := fmt.Sprintf("[… %d earlier bytes of output not kept …]\n", s.dropped)
		n, _ := s.f.WriteAt([]byte(hdr), 0)
		s.n = int64(n)
	}
	n, _ := s.f.WriteAt(p, s.n)
	s.n += int64(n)
}

// headerLen is the length of the note at the top of a file that started over.
func (s *spool) headerLen() int64 {
	if s.dropped == 0 {
		return 0
	}
	return int64(len(fmt.Sprintf("[… %d earlier bytes of output not kept …]\n", s.dropped)))
}

func (s *spool) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// remove deletes the copy: the command's result holds its output now.
func (s *spool) remove() {
	if s == nil {
		return
	}
	s.close()
	os.Remove(s.path)
}
