package arxiv

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestArxivFetch(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/pdf/2401.12345", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("%PDF-1.5 fake")) })
	mux.HandleFunc("/pdf/2401.99999", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>not found</html>")) })
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Attention Is
  All You Need</title><summary>We propose.</summary><published>2017-06-12T17:57:34Z</published>
  <author><name>Ashish Vaswani</name></author><author><name>Noam Shazeer</name></author></entry></feed>`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	a := Client{PDFBase: srv.URL, APIBase: srv.URL + "/api"}
	pdf, meta, err := a.Fetch(context.Background(), "2401.12345")
	if err != nil || string(pdf) != "%PDF-1.5 fake" {
		t.Fatalf("fetch: %q, %v", pdf, err)
	}
	if meta.Title != "Attention Is All You Need" || len(meta.Authors) != 2 || meta.Year != 2017 {
		t.Fatalf("meta = %+v", meta)
	}
	if _, _, err := a.Fetch(context.Background(), "2401.99999"); err == nil {
		t.Fatal("an HTML page was taken for a PDF")
	}
	// Offline: nothing listens.
	dead := Client{PDFBase: "http://127.0.0.1:1", APIBase: "http://127.0.0.1:1/api"}
	if _, _, err := dead.Fetch(context.Background(), "2401.12345"); !errors.Is(err, ErrOffline) {
		t.Fatalf("offline error = %v", err)
	}
}
