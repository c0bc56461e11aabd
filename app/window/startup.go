package window

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"
)

// StartupEnv names the variable that makes the window print its start-up timeline to stderr
// once the front end has painted (.ci/window-smoke.sh and `make bench` read it): first paint
// measured from inside, not by polling screenshots.
const StartupEnv = "TOFU_STARTUP_TIMES"

// startupTopic is the event the front end sends after its first frames (frontend/src/lib/startup.ts).
const startupTopic = "tofu:startup"

// pageMarks are the front end's marks: Origin is performance.timeOrigin (the page's navigation
// start, Unix ms); the others are performance.now() values, ms after Origin.
type pageMarks struct {
	Origin   float64 `json:"origin"`
	HTML     float64 `json:"html"`     // index.html received (0: the engine did not say)
	Script   float64 `json:"script"`   // the bundle began to run
	Imported float64 `json:"imported"` // every module evaluated (main's body began)
	Mounted  float64 `json:"mounted"`  // the shell mounted, before its frame
	Shell    float64 `json:"shell"`    // the first frame after the shell mounted
	Data     float64 `json:"data"`     // the conversations, settings and folders arrived
	Models   float64 `json:"models"`   // the model status arrived
	Ready    float64 `json:"ready"`    // the first frame after the conversations and models arrived
}

// timeline is the window's start-up, each mark in ms after the process started (the `tofu`
// command, which became tofu-window by exec).
type timeline struct {
	Run      float64 `json:"run"`      // Go handed over to Wails (the window about to be built)
	Page     float64 `json:"page"`     // WebKit began loading the page
	HTML     float64 `json:"html"`     // index.html received from the asset server
	Bundle   float64 `json:"bundle"`   // the page asked for its script (Go's clock: WebKitGTK times no custom-scheme resource)
	Script   float64 `json:"script"`   // the bundle began to run
	Imported float64 `json:"imported"` // every module evaluated
	Mounted  float64 `json:"mounted"`  // the shell's DOM built, before its first frame
	Shell    float64 `json:"shell"`    // first frame of the shell
	Data     float64 `json:"data"`     // the first data calls answered (conversations, settings, folders)
	Models   float64 `json:"models"`   // the model status answered
	Ready    float64 `json:"ready"`    // first frame with the data the shell waits for: first paint
}

// newTimeline places the page's marks on the process's clock.
func newTimeline(process, run, bundle time.Time, m pageMarks) timeline {
	since := func(t time.Time) float64 { return float64(t.Sub(process).Microseconds()) / 1000 }
	origin := time.UnixMicro(int64(m.Origin * 1000))
	at := func(ms float64) float64 { return since(origin.Add(time.Duration(ms * float64(time.Millisecond)))) }
	page := func(ms float64) float64 { // a mark the engine left out stays 0
		if ms == 0 {
			return 0
		}
		return at(ms)
	}
	asked := 0.0
	if !bundle.IsZero() {
		asked = since(bundle)
	}
	return timeline{Run: since(run), Page: since(origin), HTML: page(m.HTML), Bundle: asked,
		Script: at(m.Script), Imported: page(m.Imported), Mounted: page(m.Mounted), Shell: at(m.Shell),
		Data: at(m.Data), Models: at(m.Models), Ready: at(m.Ready)}
}

// print writes the timeline as one line a script can read: "startup: {json}".
func (t timeline) print(w io.Writer) {
	b, _ := json.Marshal(t)
	fmt.Fprintf(w, "startup: %s\n", b)
}

// reportStartup prints the timeline when StartupEnv is set; data is the front end's event.
func (w *Window) reportStartup(data ...any) {
	if os.Getenv(StartupEnv) == "" || len(data) == 0 {
		return
	}
	raw, err := json.Marshal(data[0])
	var m pageMarks
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	if err != nil || m.Origin == 0 {
		fmt.Fprintf(os.Stderr, "startup: the front end's marks are unreadable: %s\n", raw)
		return
	}
	started, err := processStart()
	if err != nil {
		fmt.Fprintf(os.Stderr, "startup: %v\n", err)
		return
	}
	newTimeline(started, w.run, w.assets.first(), m).print(os.Stderr)
}

// timedAssets notes when the page first asked for a script (the start-up timeline's "bundle"
// mark): the front end cannot say, since WebKitGTK keeps no resource timing for the window's
// custom scheme. Only the window started with StartupEnv serves through it.
type timedAssets struct {
	fs.FS
	mu    sync.Mutex
	asked time.Time
}

func (t *timedAssets) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, ".js") {
		t.mu.Lock()
		if t.asked.IsZero() {
			t.asked = time.Now()
		}
		t.mu.Unlock()
	}
	return t.FS.Open(name)
}

// first is when the first script was asked for, zero before that (or when not timed).
func (t *timedAssets) first() time.Time {
	if t == nil {
		return time.Time{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.asked
}
