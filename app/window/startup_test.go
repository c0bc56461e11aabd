package window

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The page's marks (its own clock: navigation start + ms) land on the process's clock.
func TestTimelinePlacesThePageMarks(t *testing.T) {
	process := time.UnixMilli(1_000_000)
	run := process.Add(120 * time.Millisecond)
	marks := pageMarks{Origin: 1_000_400, Script: 150, Shell: 180.5, Data: 200, Models: 300, Ready: 420}
	got := newTimeline(process, run, marks)
	want := timeline{Run: 120, Page: 400, Script: 550, Shell: 580.5, Data: 600, Models: 700, Ready: 820}
	if got != want {
		t.Fatalf("timeline = %+v, want %+v", got, want)
	}
	var b bytes.Buffer
	got.print(&b)
	if !strings.HasPrefix(b.String(), `startup: {"run":120,"page":400,"script":550,"shell":580.5,"data":600,"models":700,"ready":820}`) {
		t.Fatalf("printed %q", b.String())
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
