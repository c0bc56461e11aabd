package web

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/tofu-research/tofu/backend/paper/library"
	"github.com/tofu-research/tofu/backend/store"
)

// paperRoutes serve a library's papers over HTTP.
type paperRoutes struct {
	lib     *library.Library
	blobs   *store.Store
	imports *library.ImportSlots
}

// PaperRoutes serves the paper routes under /api/paper/, for `tofu serve` (behind its token) and
// the window's asset server:
//
//	GET  /api/paper/<id>.pdf                     the PDF (range requests work: pdf.js streams it)
//	GET  /api/paper/<id>/report.md               the report, as a download
//	GET  /api/paper/<id>/translation/<lang>.md   a translation, as a download
//	POST /api/paper/import?name=<file name>      the PDF as the raw body; answers PaperInfo (413 over
//	                                             512 MB, 503 while two imports run)
func PaperRoutes(lib *library.Library, blobs *store.Store, imports *library.ImportSlots) http.Handler {
	p := &paperRoutes{lib: lib, blobs: blobs, imports: imports}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, "/api/paper/")
		switch {
		case rest == "import":
			if r.Method != http.MethodPost {
				writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use POST"})
				return
			}
			p.upload(w, r) // upload.go
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET"})
		case strings.HasSuffix(rest, ".pdf") && !strings.Contains(rest, "/"):
			id := strings.TrimSuffix(rest, ".pdf")
			info, err := p.lib.Info(id)
			if err != nil {
				http.NotFound(w, r)
				return
			}
			blob, err := p.blobs.Blob(library.PDFKey(id))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Cache-Control", "private, max-age=3600")
			http.ServeContent(w, r, "", info.Added, blob)
		case strings.HasSuffix(rest, "/report.md"):
			id := strings.TrimSuffix(rest, "/report.md")
			md, err := p.lib.ReportMarkdown(id)
			download(w, md, err, id+"-report.md")
		case strings.Contains(rest, "/translation/") && strings.HasSuffix(rest, ".md"):
			id, lang, _ := strings.Cut(strings.TrimSuffix(rest, ".md"), "/translation/")
			lang, _ = url.PathUnescape(lang)
			md, err := p.lib.TranslationMarkdown(id, lang)
			download(w, md, err, id+"-"+lang+".md")
		default:
			http.NotFound(w, r)
		}
	})
}

func download(w http.ResponseWriter, text string, err error, name string) {
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, name)+`"`)
	io.WriteString(w, text)
}

// writeError answers an error with its status; paper import errors also carry their kind
// (encrypted, no_text, corrupt) and hint.
func writeError(w http.ResponseWriter, err error) {
	body := map[string]string{"error": err.Error()}
	if pe := library.Explain(err); pe.Kind != "" {
		body["kind"], body["hint"] = pe.Kind, pe.Hint
	}
	status := statusOf(err)
	if errors.Is(err, store.ErrNotFound) {
		status = http.StatusNotFound
	}
	writeJSON(w, status, body)
}
