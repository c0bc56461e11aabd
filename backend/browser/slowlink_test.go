package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A link whose server takes long to answer: Chromium holds every call into the page until the
// answer commits. The click reports the page still loading (it once said "the page crashed"
// and dropped the tab), on the same tab, and a later wait sees the page once the server answers.
func TestClickOnASlowLinkReportsItStillLoading(t *testing.T) {
	m := newManager(t)
	// The slow page cannot commit before release: no need to wait the default 5 s for it.
	m.o.CommitWait = 500 * time.Millisecond
	ctx := testCtx(t)
	arrived, release := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Start</title><a href="/slow">Open the slow page</a>`)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Slow</title><p>The slow answer came</p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})

	rep, err := m.Navigate(ctx, "s", srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	tab := rep.Tab
	link := refOf(t, rep.Text, `link "Open the slow page"`)
	rep, err = m.Act(ctx, "s", []Action{{Do: "click", Ref: link}})
	if err != nil {
		t.Fatalf("a click on a slow link: %v", err)
	}
	<-arrived
	mustContain(t, rep.Text, "still loading", "/slow")
	if rep.Tab != tab {
		t.Fatalf("the report is of tab %s, want the same tab %s", rep.Tab, tab)
	}
	if tabs := m.Tabs(ctx, "s"); len(tabs) != 1 || tabs[0].ID != tab {
		t.Fatalf("tabs after the click: %+v, want only %s", tabs, tab)
	}

	// A snapshot meanwhile says the same, without waiting the action out.
	snap, err := m.Snapshot(ctx, "s", 0)
	if err != nil {
		t.Fatalf("a snapshot while the page loads: %v", err)
	}
	mustContain(t, snap.Text, "still loading", "/slow")

	close(release)
	rep, err = m.Act(ctx, "s", []Action{{Do: "wait", Text: "The slow answer came", TimeoutMS: 60000}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rep.Text, "in vain") {
		t.Fatalf("the page never showed once the server answered:\n%s", rep.Text)
	}
	snap, err = m.Snapshot(ctx, "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, snap.Text, "The slow answer came")
	if snap.Tab != tab {
		t.Fatalf("the snapshot is of tab %s, want %s", snap.Tab, tab)
	}
}
