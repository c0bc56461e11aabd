package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
)

// TestOriginEndToEnd opens the real UI in headless Chromium, then a page served from another
// local port that tries to call, read and stream Tofu's API with the cookie the browser sends
// along (frontend/e2e/origin.e2e.mjs); nothing it tries may change the log, and the UI must
// still work. Runs with TOFU_E2E=1 (make test-e2e).
func TestOriginEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel()).ScriptDemo()
	isolate(t, model.URL)
	st, url, stop := serveE2E(t, root)

	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>another local app</title><body></body>"))
	}))
	defer evil.Close()

	runBrowser(t, root, url, "origin.e2e.mjs", "origin-e2e.png", "TOFU_EVIL_URL="+evil.URL+"/")
	stop()

	list, err := st.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Errorf("conversations: %d, want the one the UI created", len(list))
	}
	for _, s := range list {
		if strings.Contains(s.Title, "evil") {
			t.Errorf("the other port's page created %q", s.Title)
		}
	}
}
