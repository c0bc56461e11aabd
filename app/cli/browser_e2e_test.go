package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/shareddata"
)

// TestBrowserCardsEndToEnd: in the real front end (frontend/e2e/browser.e2e.mjs against
// `tofu serve`), the scripted model drives TodoMVC in Tofu's Chromium and each browser call's
// card shows its target, the page's title and URL, and a thumbnail. Runs with TOFU_E2E=1.
func TestBrowserCardsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	site := httptest.NewServer(http.FileServer(http.Dir(shareddata.Require(t, "web", "todomvc", "react"))))
	defer site.Close()
	model := llmtest.New(t, llmtest.DemoModel())
	sc, err := llmtest.LoadScript(strings.NewReader(todoScript(site.URL + "/index.html")))
	if err != nil {
		t.Fatal(err)
	}
	model.Load(sc)
	isolate(t, model.URL)
	_, url, stop := serveE2E(t, root)
	defer stop()
	runBrowser(t, root, url, "browser.e2e.mjs", "browser-cards.png", "TOFU_E2E_WORKSPACE="+t.TempDir())
}
