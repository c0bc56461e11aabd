package browser

import (
	"context"
	"testing"
	"time"
)

// TestSaveWaitsForADownloadToBegin: the click that starts a download reports before Chromium
// says it began (under load, well before); a save step of that name waits for it, and one of
// a name that never begins says so once the grace is over.
func TestSaveWaitsForADownloadToBegin(t *testing.T) {
	m := New(Options{DownloadGrace: time.Hour})
	s := &sessionTabs{}
	m.sessions["s"] = s
	found := make(chan *download, 1)
	go func() {
		d, err := m.awaitDownload(context.Background(), "s", "data.csv")
		if err != nil {
			t.Error(err)
		}
		found <- d
	}()
	m.mu.Lock()
	m.addDownload(s, &download{name: "other.csv"})
	m.mu.Unlock()
	want := &download{name: "data.csv"}
	m.mu.Lock()
	m.addDownload(s, want)
	m.mu.Unlock()
	if d := <-found; d != want {
		t.Fatalf("found %+v, want the download that began", d)
	}
	m.o.DownloadGrace = time.Millisecond
	if _, err := m.awaitDownload(context.Background(), "s", "nope.csv"); err == nil || fmtErr(err) != `no download called "nope.csv" in this session` {
		t.Fatalf("a download that never began: %v", err)
	}
}
