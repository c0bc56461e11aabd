package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A URL typed on the command line is fetched wherever it points, loopback included.
func TestWebFetchCommand(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><title>Notes</title></head><body><nav>Home · Shop</nav><article><h1>Notes</h1><p>Tofu keeps five days in fresh water changed daily, covered, in the fridge.</p><p>Frozen tofu turns spongy and soaks up marinades better.</p></article></body></html>`))
	}))
	defer srv.Close()
	for _, c := range []struct{ format, want string }{
		{"markdown", "Tofu keeps five days in fresh water"},
		{"text", "Frozen tofu turns spongy"},
		{"json", `"kind": "html"`},
	} {
		cmd := newWebCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"fetch", "--format", c.format, srv.URL})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: %q missing from %q", c.format, c.want, out.String())
		}
		if c.format == "json" && !json.Valid(out.Bytes()) {
			t.Errorf("json: not JSON: %q", out.String())
		}
	}
}
