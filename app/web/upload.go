package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/tofu-research/tofu/backend/paper/library"
)

// maxUpload bounds a PDF sent to /api/paper/import.
const maxUpload = 512 << 20

// upload answers POST /api/paper/import: the body is the PDF. It is streamed to a temporary
// file (never held in memory), and refused before a byte is read when it declares more than
// maxUpload (413) or when library.MaxImports imports already run (503 with Retry-After: the body of a
// waiting upload would sit on a connection or a disk, unbounded in number).
func (p *paperRoutes) upload(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxUpload {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": tooLarge(r.ContentLength)})
		return
	}
	release, ok := p.imports.TryAcquire()
	if !ok {
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": library.ErrImportsBusy.Error()})
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
