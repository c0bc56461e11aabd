package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/shareddata"
)

// newManager starts nothing: the browser starts on the test's first call, in a profile under
// the test's temp dir, and is closed when the test ends.
func newManager(t *testing.T) *Manager {
	t.Helper()
	if _, err := FindChromium(""); err != nil {
		t.Fatal(err) // build/setup.sh test installs chromium: its absence is a broken setup
	}
	m := New(Options{ProfileDir: filepath.Join(t.TempDir(), "profile"), Idle: time.Hour})
	t.Cleanup(m.Close)
	return m
}

// serve serves dir on loopback.
func serve(t *testing.T, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// todomvc serves a shared TodoMVC app.
func todomvc(t *testing.T, app string) string {
	t.Helper()
	return serve(t, shareddata.Require(t, "web", "todomvc", app))
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
