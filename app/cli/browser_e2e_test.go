package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/shareddata"
)

// TestBrowserCardsEndToEnd: in the real front end (frontend/e2e/browser.e2e.mjs against
// `tofu serve`), the scripted model drives TodoMVC in Tofu's Chromium and each browser call's
// card shows its target, the page's title and URL, and a thumbnail. Runs with TOFU_E2E=1.
func TestBrowserCardsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	site := httptest.NewServer(http.FileServer(http.Dir(shareddata.Require(t, "web", "todomvc", "react"))))
	defer site.Close()
	model := scripted.New(t, scripted.DemoModel())
	sc, err := scripted.LoadScript(strings.NewReader(todoScript(site.URL + "/index.html")))
	if err != nil {
		t.Fatal(err)
	}
	model.Load(sc)
	isolate(t, model.URL)
	_, url, stop := serveE2E(t, root)
	defer stop()
	runBrowser(t, root, url, "browser.e2e.mjs", "browser-cards.png", "TOFU_E2E_WORKSPACE="+t.TempDir())
}

// TestBrowserLiveFollowsTabsEndToEnd: the live view follows the session's active tab. The
// scripted model opens TodoMVC, then a second page in a new tab (the live view, started then,
// shows tab t2); in the next turn it switches back to t1, and the live view moves there
// without being restarted. Its screenshot is build/test-shots/browser-live-tabs.png. Runs with
// TOFU_E2E=1.
func TestBrowserLiveFollowsTabsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	site := httptest.NewServer(http.FileServer(http.Dir(shareddata.Require(t, "web", "todomvc", "react"))))
	defer site.Close()
	second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<title>Second page</title><body style="background:#e8f0ff"><h1>Second page</h1><p>Opened in a tab of its own.</p></body>`))
	}))
	defer second.Close()
	model := scripted.New(t, scripted.DemoModel())
	// The switch's result is matched by its turn, not its text: when t1's page is as it was at
	// the first step, the context manager sends it as a reference to that earlier result.
	sc, err := scripted.LoadScript(strings.NewReader(fmt.Sprintf(`[
	  {"match": {"user_contains": "two pages"}, "times": 1,
	   "reply": {"tool_calls": [{"id": "c1", "name": "browser_navigate", "arguments": {"url": %q}}]}},
	  {"match": {"tool_result": "TodoMVC: React"}, "times": 1,
	   "reply": {"tool_calls": [{"id": "c2", "name": "browser_tabs", "arguments": {"op": "open", "url": %q}}]}},
	  {"match": {"tool_result": "Second page"}, "times": 1, "reply": {"text": "Both pages are open."}},
	  {"match": {"user_contains": "switch back"}, "times": 1,
	   "reply": {"tool_calls": [{"id": "c3", "name": "browser_tabs", "arguments": {"op": "switch", "tab": "t1"}}]}},
	  {"match": {"user_contains": "switch back"}, "times": 1, "reply": {"text": "Back on the first tab."}}]`,
		site.URL+"/index.html", second.URL+"/")))
	if err != nil {
		t.Fatal(err)
	}
	model.Load(sc)
	isolate(t, model.URL)
	_, url, stop := serveE2E(t, root)
	defer stop()
	runBrowser(t, root, url, "browser-tabs.e2e.mjs", "browser-live-tabs.png", "TOFU_E2E_WORKSPACE="+t.TempDir())
}
