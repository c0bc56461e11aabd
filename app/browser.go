package app

import (
	"context"
	"sync"
	"time"

	"github.com/tofu-research/tofu/backend/browser"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/browse"
)

// browserTools gives every agent turn the browser tools (deferred: found with tool_search),
// on the app's one browser, in the turn's session's tabs.
func browserTools(m *browser.Manager, webAccess func() bool) session.ToolFamily {
	return func(reg *tools.Registry, spec session.Spec) (func(), error) {
		return nil, browse.Add(reg, browse.Options{Browser: m, Session: spec.Session, WebAccess: webAccess, Thumbnails: true})
	}
}

// BrowserTopic carries a session's live browser view (BrowserFrame) to the window.
func BrowserTopic(session string) string { return "browser:" + session }

// BrowserFrame is one picture of a watched tab (a JPEG, base64 in JSON) and the page size in
// CSS pixels, where the window maps a click.
type BrowserFrame = browser.Frame

// BrowserService is the window's live view of a session's browser tab (the active one, as it
// changes): a screencast, and a "take over" switch that pauses the agent's browser calls while
// the user clicks, types, presses keys and scrolls.
type BrowserService struct {
	m    *browser.Manager
	emit Emitter

	mu      sync.Mutex
	watches map[string]context.CancelFunc
}

func newBrowserService(m *browser.Manager, emit Emitter) *BrowserService {
	return &BrowserService{m: m, emit: emit, watches: map[string]context.CancelFunc{}}
}

// Watch starts streaming the session's active tab on BrowserTopic (until Unwatch); an error
// when the session has no tab open.
func (s *BrowserService) Watch(session string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watches[session] != nil {
		return nil
	}
	// A session without a tab fails at once; otherwise the stream runs until Unwatch.
	if err := s.m.WatchReady(session); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_ = s.m.Watch(ctx, session, func(f browser.Frame) { s.emit.Emit(BrowserTopic(session), f) })
	}()
	s.watches[session] = cancel
	return nil
}

// Unwatch stops the session's stream.
func (s *BrowserService) Unwatch(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cancel := s.watches[session]; cancel != nil {
		cancel()
		delete(s.watches, session)
	}
}

// TakeOver gives the session's browser to the user (the agent's browser calls wait) or back.
func (s *BrowserService) TakeOver(session string, on bool) { s.m.TakeOver(session, on) }

// Click clicks at (x, y), in the page's CSS pixels, for the user.
func (s *BrowserService) Click(session string, x, y float64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.m.UserClick(ctx, session, x, y)
}

// Type types text into the focused field for the user, then Enter when enter is set.
func (s *BrowserService) Type(session, text string, enter bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.m.UserType(ctx, session, text, enter)
}

// Key presses keys in the page for the user: a chord such as "Tab", "Shift+Tab",
// "Control+a", "ArrowDown" or "Escape" (the live view maps the user's key presses to these).
func (s *BrowserService) Key(session, keys string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.m.UserKey(ctx, session, keys)
}

// Scroll turns the mouse wheel at (x, y) by (dx, dy), all in the page's CSS pixels, for the user.
func (s *BrowserService) Scroll(session string, x, y, dx, dy float64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.m.UserScroll(ctx, session, x, y, dx, dy)
}

func (s *BrowserService) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, cancel := range s.watches {
		cancel()
		delete(s.watches, id)
	}
}
