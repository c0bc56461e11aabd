package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// The live view: the window watches a session's active tab as a CDP screencast (following the
// tab as the session switches, opens or closes tabs), and the user can take over (the agent's
// browser calls wait) to click, type, press keys and scroll in it, then hand it back.

// Frame is one picture of the screencast.
type Frame struct {
	JPEG []byte `json:"jpeg"`
	// Width and Height are the page's viewport in CSS pixels (where a click lands).
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// Tab is the session's tab the picture is of ("t2").
	Tab string `json:"tab"`
}

// ErrNoPage means the session has no open tab to watch or act in.
var ErrNoPage = errors.New("the session has no browser tab open")

// activeTab is the session's active tab, without starting anything.
func (m *Manager) activeTab(session string) *Tab {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[session]
	if s == nil || m.browser == nil {
		return nil
	}
	return s.find(s.active)
}

// watchedTab is the session's active tab and a channel closed when that changes.
func (m *Manager) watchedTab(session string) (*Tab, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	ch := s.activeChanged()
	if m.browser == nil {
		return nil, ch
	}
	return s.find(s.active), ch
}

// Watch streams the session's active tab to fn until ctx ends (frames come when the page
// changes), moving to another tab when the session's active tab changes. It fails at once
// when the session has no tab; later, with none open, it waits for one. fn must not block
// long: a frame is acknowledged after it returns.
func (m *Manager) Watch(ctx context.Context, session string, fn func(Frame)) error {
	if m.activeTab(session) == nil {
		return ErrNoPage
	}
	for {
		t, changed := m.watchedTab(session)
		if t != nil {
			m.cast(ctx, t, changed, fn)
		} else {
			select {
			case <-changed:
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// cast streams tab t until ctx ends or changed is closed.
func (m *Manager) cast(ctx context.Context, t *Tab, changed <-chan struct{}, fn func(Frame)) {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-changed:
			cancel()
		case <-cctx.Done():
		}
	}()
	p := t.page.Context(cctx)
	framed := make(chan struct{}, 1)
	wait := p.EachEvent(func(e *proto.PageScreencastFrame) {
		_ = proto.PageScreencastFrameAck{SessionID: e.SessionID}.Call(p)
		f := Frame{JPEG: e.Data, Tab: t.ID}
		if e.Metadata != nil {
			f.Width, f.Height = e.Metadata.DeviceWidth, e.Metadata.DeviceHeight
		}
		fn(f)
		select {
		case framed <- struct{}{}:
		default:
		}
	})
	done := make(chan struct{})
	go func() {
		wait() // until ctx ends or the active tab changes
		close(done)
	}()
	// A screencast sends its first frame as it starts. One that sends none (a tab opened under
	// load, started before its page was in front, or while its first document was still being
	// replaced) is started again, a few times, rather than leaving the view blank until the
	// session changes tabs.
starts:
	for try := 0; try < castStarts; try++ {
		if try > 0 {
			_ = proto.PageStopScreencast{}.Call(p)
		}
		startCast(p)
		select {
		case <-framed: // streaming: until the end below
			break starts
		case <-done:
			break starts
		case <-time.After(firstFrameWait):
		}
	}
	<-done
	// A tab closed meanwhile may never answer: the stop is bounded, so the view moves on.
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	_ = proto.PageStopScreencast{}.Call(t.page.Context(sctx))
}

// How long a screencast may start without a frame before it is started again, and how many
// times it is started (a page that never draws, or a tab that is closing, is left after that).
const (
	firstFrameWait = 2 * time.Second
	castStarts     = 5
)

// startCast brings the page to front and starts its screencast. Chromium draws only the tab in
// front, so a tab opened or switched to under load may otherwise never send a frame. An error
// (a tab that is closing) is left to the caller's retries and the session's next change.
func startCast(p *rod.Page) {
	_ = proto.PageBringToFront{}.Call(p)
	q, w, h := 60, 960, 720
	_ = proto.PageStartScreencast{Format: proto.PageStartScreencastFormatJpeg, Quality: &q, MaxWidth: &w, MaxHeight: &h}.Call(p)
}

// TakeOver gives the session's browser to the user (on) or back to the agent: while the user
// has it, the agent's browser calls wait (or end with their turn).
func (m *Manager) TakeOver(session string, on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	switch {
	case on && s.paused == nil:
		s.paused = make(chan struct{})
	case !on && s.paused != nil:
		close(s.paused)
		s.paused = nil
	}
}

// TakenOver reports whether the user has the session's browser.
func (m *Manager) TakenOver(session string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[session]
	return s != nil && s.paused != nil
}

// waitHandBack blocks the agent while the user has the session's browser.
func (m *Manager) waitHandBack(ctx context.Context, session string) error {
	m.mu.Lock()
	s := m.sessionLocked(session)
	paused := s.paused
	m.mu.Unlock()
	if paused == nil {
		return nil
	}
	select {
	case <-paused:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// UserClick clicks at (x, y), in the page's CSS pixels, in the session's active tab: the
// user's own click from the live view, allowed while the agent waits.
func (m *Manager) UserClick(ctx context.Context, session string, x, y float64) error {
	t := m.activeTab(session)
	if t == nil {
		return ErrNoPage
	}
	mouse := t.page.Context(ctx).Mouse
	if err := mouse.MoveTo(proto.Point{X: x, Y: y}); err != nil {
		return err
	}
	return mouse.Click(proto.InputMouseButtonLeft, 1)
}

// UserType types text (and Enter when enter is set) into the focused element of the session's
// active tab, from the live view.
func (m *Manager) UserType(ctx context.Context, session, text string, enter bool) error {
	t := m.activeTab(session)
	if t == nil {
		return ErrNoPage
	}
	p := t.page.Context(ctx)
	if text != "" {
		if err := p.InsertText(text); err != nil {
			return err
		}
	}
	if enter {
		return press(ctx, t.page, "Enter")
	}
	return nil
}

// UserKey presses keys in the session's active tab from the live view: chords as
// browser_act's press takes them ("Tab", "Shift+Tab", "Control+a", "ArrowDown", "Escape").
func (m *Manager) UserKey(ctx context.Context, session, keys string) error {
	t := m.activeTab(session)
	if t == nil {
		return ErrNoPage
	}
	return press(ctx, t.page, keys)
}

// UserScroll turns the mouse wheel at (x, y), in the page's CSS pixels, by (dx, dy) pixels in
// the session's active tab, from the live view.
func (m *Manager) UserScroll(ctx context.Context, session string, x, y, dx, dy float64) error {
	t := m.activeTab(session)
	if t == nil {
		return ErrNoPage
	}
	err := proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseWheel, X: x, Y: y, DeltaX: dx, DeltaY: dy}.Call(t.page.Context(ctx))
	if err != nil {
		return fmt.Errorf("scroll: %w", err)
	}
	return nil
}

// EvalValueAsUser evaluates js in the session's active tab for the user's live view (it does
// not wait while the user has the browser, as the agent's calls do).
func (m *Manager) EvalValueAsUser(ctx context.Context, session, js string) (string, error) {
	t := m.activeTab(session)
	if t == nil {
		return "", ErrNoPage
	}
	res, err := t.page.Context(ctx).Evaluate(&rod.EvalOptions{JS: jsFunction(js), ByValue: true, AwaitPromise: true})
	if err != nil {
		return "", err
	}
	return res.Value.JSON("", ""), nil
}

// WatchReady reports whether the session has a tab Watch can stream (ErrNoPage if not).
func (m *Manager) WatchReady(session string) error {
	if m.activeTab(session) == nil {
		return ErrNoPage
	}
	return nil
}
