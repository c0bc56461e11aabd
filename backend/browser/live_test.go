package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestLiveViewAndTakeOver(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	if err := m.Watch(ctx, "s", func(Frame) {}); !errors.Is(err, ErrNoPage) {
		t.Fatalf("watching no tab: %v", err)
	}
	if _, err := m.Navigate(ctx, "s", sites(t)+"/widgets/index.html"); err != nil {
		t.Fatal(err)
	}
	frames := make(chan Frame, 16)
	wctx, stop := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() {
		watched <- m.Watch(wctx, "s", func(f Frame) {
			select {
			case frames <- f:
			default:
			}
		})
	}()
	// A change on the page makes a frame.
	if _, err := m.EvalValue(ctx, "s", `document.body.style.background = 'yellow'`); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-frames:
		if len(f.JPEG) < 100 || f.JPEG[0] != 0xFF || f.Width != 1280 {
			t.Fatalf("frame of %d bytes, %vx%v", len(f.JPEG), f.Width, f.Height)
		}
	case <-ctx.Done():
		t.Fatal("no frame came")
	}
	stop()
	if err := <-watched; err != nil {
		t.Fatal(err)
	}

	// The user takes over: the agent's calls wait (here until their deadline), the user's click
	// lands, and once handed back the agent goes on and sees it.
	m.TakeOver("s", true)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := m.Snapshot(short, "s", 0)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an agent call while the user has the browser: %v", err)
	}
	box, err := m.EvalValueAsUser(ctx, "s", `JSON.stringify(document.getElementById('card').getBoundingClientRect())`)
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ X, Y, Width, Height float64 }
	if err := json.Unmarshal([]byte(unquoteJSON(box)), &r); err != nil {
		t.Fatal(err)
	}
	if err := m.UserClick(ctx, "s", r.X+r.Width/2, r.Y+r.Height/2); err != nil {
		t.Fatal(err)
	}
	m.TakeOver("s", false)
	rep, err := m.Snapshot(ctx, "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Text, "card;") {
		t.Fatalf("the user's click did not land:\n%s", rep.Text[:200])
	}
}

func unquoteJSON(s string) string {
	var out string
	if json.Unmarshal([]byte(s), &out) != nil {
		return s
	}
	return out
}

// TestLiveViewFollowsTheActiveTab: the live view moves to the tab the session works in as it
// opens, switches and closes tabs.
func TestLiveViewFollowsTheActiveTab(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	base := sites(t)
	if _, err := m.Navigate(ctx, "s", base+"/widgets/index.html"); err != nil {
		t.Fatal(err)
	}
	frames := make(chan Frame, 64)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		_ = m.Watch(wctx, "s", func(f Frame) {
			select {
			case frames <- f:
			default:
			}
		})
	}()
	// frameOf waits for a frame of tab id (frames of the tab watched before may still come),
	// poking the page so it draws.
	frameOf := func(id string) {
		t.Helper()
		for i := 0; ; i++ {
			if _, err := m.EvalValueAsUser(ctx, "s", fmt.Sprintf(`document.body.style.background = 'hsl(%d, 50%%, 80%%)'`, i*37)); err != nil {
				t.Fatal(err)
			}
			// A page changed before the screencast of its tab started draws no frame: it is
			// poked again until one comes.
			select {
			case f := <-frames:
				if f.Tab == id {
					return
				}
			case <-time.After(250 * time.Millisecond):
			case <-ctx.Done():
				t.Fatalf("no frame of %s came", id)
			}
		}
	}
	frameOf("t1")
	id, err := m.OpenTab(ctx, "s", base+"/forms/index.html")
	if err != nil || id != "t2" {
		t.Fatalf("open: %s %v", id, err)
	}
	frameOf("t2")
	if err := m.SwitchTab("s", "t1"); err != nil {
		t.Fatal(err)
	}
	frameOf("t1")
	if err := m.SwitchTab("s", "t2"); err != nil {
		t.Fatal(err)
	}
	frameOf("t2")
	if err := m.CloseTab("s", "t2"); err != nil {
		t.Fatal(err)
	}
	frameOf("t1")
}

// TestUserKeysAndScroll: from the live view the user presses Tab, Backspace, arrows, Escape and
// chords with modifiers, and turns the mouse wheel, in the page.
func TestUserKeysAndScroll(t *testing.T) {
	m := newManager(t)
	ctx := testCtx(t)
	page := `<!doctype html><body style="height:4000px"><input id="a" value="abc"> <input id="b">
<p id="log"></p><script>
addEventListener('keydown', (e) => { document.getElementById('log').textContent += (e.ctrlKey ? 'C-' : '') + (e.shiftKey ? 'S-' : '') + e.key + ' '; });
</script></body>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()
	if _, err := m.Navigate(ctx, "s", srv.URL); err != nil {
		t.Fatal(err)
	}
	m.TakeOver("s", true)
	defer m.TakeOver("s", false)
	value := func(js string) string {
		t.Helper()
		v, err := m.EvalValueAsUser(ctx, "s", js)
		if err != nil {
			t.Fatal(err)
		}
		return unquoteJSON(v)
	}
	if _, err := m.EvalValueAsUser(ctx, "s", `document.getElementById('a').focus(); document.getElementById('a').setSelectionRange(3, 3)`); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Backspace", "ArrowLeft", "Escape", "Control+a", "Tab", "Shift+Tab", "ArrowDown"} {
		if err := m.UserKey(ctx, "s", k); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	if got := value(`document.getElementById('a').value`); got != "ab" {
		t.Fatalf("after Backspace the field holds %q", got)
	}
	if got := value(`document.getElementById('log').textContent`); got != "Backspace ArrowLeft Escape C-Control C-a Tab S-Shift S-Tab ArrowDown " {
		t.Fatalf("keys the page saw: %q", got)
	}
	if got := value(`document.activeElement.id`); got != "a" {
		t.Fatalf("Tab then Shift+Tab left the focus on %q", got)
	}
	if err := m.UserScroll(ctx, "s", 200, 200, 0, 500); err != nil {
		t.Fatal(err)
	}
	// The wheel scrolls as the page's next frames draw: wait for it.
	if _, err := m.EvalValueAsUser(ctx, "s", `new Promise((done) => { const f = () => scrollY > 0 ? done(scrollY) : requestAnimationFrame(f); f(); })`); err != nil {
		t.Fatal(err)
	}
}
