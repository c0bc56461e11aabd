package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
)

const (
	// maxUpload bounds a PDF sent to /api/paper/import.
	maxUpload = 512 << 20
	// maxImports is how many imports run at once. An extraction may use up to ~512 MB
	// (backend/paper's bounds), so two keep a machine responsive; the rest are turned away
	// (uploads) or wait (imports from the window and the CLI, which a person paces).
	maxImports = 2
)

// errImportsBusy is the answer to an upload while maxImports imports run.
var errImportsBusy = fmt.Errorf("%d imports are already running: try again when one finishes", maxImports)

// importSlots holds one token per import running; made on first use so PaperService stays a
// plain struct literal.
type importSlots struct {
	once sync.Once
	ch   chan struct{}
}

func (s *importSlots) slots() chan struct{} {
	s.once.Do(func() { s.ch = make(chan struct{}, maxImports) })
	return s.ch
}

// tryAcquire takes a slot if one is free.
func (s *importSlots) tryAcquire() (release func(), ok bool) {
	select {
	case s.slots() <- struct{}{}:
		return s.release, true
	default:
		return nil, false
	}
}

// acquire waits for a slot until ctx ends.
func (s *importSlots) acquire(ctx context.Context) (release func(), err error) {
	select {
	case s.slots() <- struct{}{}:
		return s.release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *importSlots) release() { <-s.slots() }

// upload answers POST /api/paper/import: the body is the PDF. It is streamed to a temporary
// file (never held in memory), and refused before a byte is read when it declares more than
// maxUpload (413) or when maxImports imports already run (503 with Retry-After: the body of a
// waiting upload would sit on a connection or a disk, unbounded in number).
func (p *PaperService) upload(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxUpload {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": tooLarge(r.ContentLength)})
		return
	}
	release, ok := p.imports.tryAcquire()
	if !ok {
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": errImportsBusy.Error()})
		return
	}
	defer release()
	f, size, err := spool(http.MaxBytesReader(w, r.Body, maxUpload))
	if f != nil {
		defer func() {
			f.Close()
			os.Remove(f.Name())
		}()
	}
	if err != nil {
		if _, over := errors.AsType[*http.MaxBytesError](err); over {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": tooLarge(-1)})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "read the upload: " + err.Error()})
		return
	}
	info, err := p.lib.Import(r.Context(), r.URL.Query().Get("name"), f, size, r.Header.Get("X-Tofu-Password"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": info})
}

func tooLarge(declared int64) string {
	msg := fmt.Sprintf("the file is larger than %d MB, the most Tofu imports", maxUpload>>20)
	if declared > 0 {
		msg = fmt.Sprintf("the file is %d MB, larger than %d MB, the most Tofu imports", declared>>20, maxUpload>>20)
	}
	return msg
}

// spool copies body into a new temporary file under the user's cache directory (on disk:
// /tmp is often a RAM-backed tmpfs) and returns it with its size.
func spool(body io.Reader) (*os.File, int64, error) {
	dir := os.TempDir()
	if cache, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(cache, "tofu", "uploads")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			dir = os.TempDir()
		}
	}
	f, err := os.CreateTemp(dir, "upload-*.pdf")
	if err != nil {
		return nil, 0, fmt.Errorf("create a temporary file: %w", err)
	}
	n, err := io.Copy(f, body)
	return f, n, err
}
