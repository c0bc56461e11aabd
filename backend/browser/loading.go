package browser

import (
	"context"
	"fmt"
	"time"
)

// While a navigation of a tab's main frame waits for its server's answer (from its start to
// its commit), Chromium holds every call into the page: a snapshot or an evaluation then
// answers only once the new document commits. A slow server is not a crashed page: the report
// says the page is still loading, keeps the tab, and a later wait or snapshot sees the page.

// commitWait bounds how long a report waits, after the action, for a navigation to commit
// before it says the page is still loading.
const commitWait = 5 * time.Second

// setNavigating records whether a navigation of the main frame waits for its commit.
func (t *Tab) setNavigating(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !on {
		t.navURL = ""
	}
	t.navigating = on
	if t.loadCh != nil {
		close(t.loadCh)
	}
	t.loadCh = make(chan struct{})
}

// setNavURL records where the page asked its tab to go (a link, a form, location): Chromium
// says so for a page's own navigations only, and for same-document ones too ("" clears it).
func (t *Tab) setNavURL(url string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.navURL = url
}

// pendingNavigation returns the URL the tab waits for ("" when Chromium did not say) and
// whether a navigation of it is still uncommitted.
func (t *Tab) pendingNavigation() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.navURL, t.navigating
}

// awaitCommit waits up to d for the tab's pending navigation (if any) to commit, and reports
// whether it still waits for its server.
func (t *Tab) awaitCommit(ctx context.Context, d time.Duration) bool {
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		t.mu.Lock()
		navigating, ch := t.navigating, t.loadWatch()
		t.mu.Unlock()
		if !navigating {
			return false
		}
		select {
		case <-ch:
		case <-cctx.Done():
			return true
		}
	}
}

// stillLoading is what the model reads of a tab whose navigation has no answer yet.
func (t *Tab) stillLoading() string {
	url, _ := t.pendingNavigation()
	if url == "" {
		url = "a new page"
	}
	return fmt.Sprintf("%s is still loading %s: its server has not answered yet (the tab is kept). "+
		"Wait for it (wait with the text or URL you expect) or take a snapshot later.", t.ID, url)
}

// loadingError is an action that ran out of time while its tab waited for a server: the
// model's to read, and no sign that the page died (the tab is kept).
type loadingError struct{ Msg string }

func (e *loadingError) Error() string { return e.Msg }
