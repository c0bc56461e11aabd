package library

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// ImportURL adds the PDF at a web address (a local server here), refuses what is not a PDF,
// and says plainly when the address cannot be reached (a closed port: no network is used).
func TestImportURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pdf, err := os.ReadFile(joss)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/papers/multivae.pdf":
			w.Write(pdf)
		case "/page":
			w.Write([]byte("<html>a landing page</html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	info, err := e.lib.ImportURL(ctx, srv.URL+"/papers/multivae.pdf")
	if err != nil || info.Name != "multivae.pdf" || info.Pages != 5 {
		t.Fatalf("import: %v %+v", err, info)
	}
	if _, err := e.lib.ImportURL(ctx, srv.URL+"/page"); err == nil || !strings.Contains(err.Error(), "is not a PDF") {
		t.Fatalf("a web page: %v", err)
	}
	if _, err := e.lib.ImportURL(ctx, srv.URL+"/gone.pdf"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("a missing file: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	if _, err := e.lib.ImportURL(ctx, "http://"+closed+"/a.pdf"); err == nil || !strings.Contains(err.Error(), "cannot be reached") || !strings.Contains(err.Error(), "download the PDF and add the file") {
		t.Fatalf("an unreachable address: %v", err)
	}
}
