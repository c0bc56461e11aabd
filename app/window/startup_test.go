package window

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// The page's marks (its own clock: navigation start + ms) land on the process's clock.
func TestTimelinePlacesThePageMarks(t *testing.T) {
	process := time.UnixMilli(1_000_000)
	run := process.Add(120 * time.Millisecond)
	bundle := process.Add(450 * time.Millisecond)
	marks := pageMarks{Origin: 1_000_400, HTML: 20, Script: 150, Imported: 160, Mounted: 170, Shell: 180.5, Data: 200, Models: 300, Ready: 420}
	got := newTimeline(process, run, bundle, marks)
	want := timeline{Run: 120, Page: 400, HTML: 420, Bundle: 450, Script: 550, Imported: 560, Mounted: 570, Shell: 580.5, Data: 600, Models: 700, Ready: 820}
	if got != want {
		t.Fatalf("timeline = %+v, want %+v", got, want)
	}
	var b bytes.Buffer
	got.print(&b)
	if !strings.HasPrefix(b.String(), `startup: {"run":120,"page":400,"html":420,"bundle":450,"script":550,"imported":560,"mounted":570,"shell":580.5,"data":600,"models":700,"ready":820}`) {
		t.Fatalf("printed %q", b.String())
	}
}

// An engine that leaves a mark out (WebKitGTK times no custom-scheme resource) leaves it 0 on
// the process's clock too, not the navigation start.
func TestTimelineLeavesMissingMarksAtZero(t *testing.T) {
	process := time.UnixMilli(1_000_000)
	got := newTimeline(process, process, time.Time{}, pageMarks{Origin: 1_000_400, Script: 150, Shell: 160, Ready: 170})
	if got.HTML != 0 || got.Bundle != 0 || got.Imported != 0 || got.Mounted != 0 || got.Script != 550 {
		t.Fatalf("timeline = %+v, want html, bundle, imported and mounted 0, script 550", got)
	}
}

// The first script asked for is timed; later ones and other files are not.
func TestTimedAssetsNotesTheFirstScript(t *testing.T) {
	a := &timedAssets{FS: fstest.MapFS{"index.html": {}, "assets/a.js": {}, "assets/b.js": {}}}
	if !a.first().IsZero() {
		t.Fatal("timed before any request")
	}
	if _, err := a.Open("index.html"); err != nil {
		t.Fatal(err)
	}
	if !a.first().IsZero() {
		t.Fatal("index.html counted as the script")
	}
	before := time.Now()
	if _, err := a.Open("assets/a.js"); err != nil {
		t.Fatal(err)
	}
	first := a.first()
	if first.Before(before) {
		t.Fatalf("first script at %v, before it was asked for (%v)", first, before)
	}
	if _, err := a.Open("assets/b.js"); err != nil {
		t.Fatal(err)
	}
	if a.first() != first {
		t.Fatal("a later script moved the mark")
	}
	var none *timedAssets
	if !none.first().IsZero() {
		t.Fatal("an untimed window has a mark")
	}
}

// The process started before now, and not long before (this test's process).
func TestProcessStart(t *testing.T) {
	started, err := processStart()
	if err != nil {
		t.Fatal(err)
	}
	if age := time.Since(started); age < 0 || age > 10*time.Minute {
		t.Fatalf("process started %v ago", age)
	}
}
