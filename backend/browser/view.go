package browser

import (
	"context"
	"sync"
	"time"
)

// Topic carries a session's live browser view (Frame) to the window.
func Topic(session string) string { return "browser:" + session }

// View is the window's live view of a session's browser tab (the active one, as it changes):
// a screencast, and a "take over" switch that pauses the agent's browser calls while the user
// clicks, types, presses keys and scrolls. The window's BrowserService (app) is View bound to
// the user interface: every exported method is callable from the page.
type View struct {
	m    *Manager
	emit func(topic string, data any)

	mu      sync.Mutex
	watches map[string]context.CancelFunc
}

// NewView makes the view of m's tabs; frames go out through emit.
func NewView(m *Manager, emit func(topic string, data any)) *View {
	return &View{m: m, emit: emit, watches: map[string]context.CancelFunc{}}
}

// Watch starts streaming the session's active tab on BrowserTopic (until Unwatch); an error
// when the session has no tab open.
func (s *View) Watch(session string) error {
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
		_ = s.m.Watch(ctx, session, func(f Frame) { s.emit(Topic(session), f) })
	}()
	s.watches[session] = cancel
	return nil
}

// Unwatch stops the session's stream.
func (s *View) Unwatch(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cancel := s.watches[session]; cancel != nil {
		cancel()
		delete(s.watches, session)
	}
}

// TakeOver gives the session's browser to the user (the agent's browser calls wait) or back.
func (s *View) TakeOver(session string, on bool) { s.m.TakeOver(session, on) }

// Click clicks at (x, y), in the page's CSS pixels, for the user.
func (s *View) Click(session string, x, y float64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.m.UserClick(ctx, session, x, y)
}

// Type types text into the focused field for the user, then Enter when enter is set.
func (s *View) Type(session, text string, enter bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.m.UserType(ctx, session, text, enter)
}

// Key presses keys in the page for the user: a chord such as "Tab", "Shift+Tab",
// "Control+a", "ArrowDown" or "Escape" (the live view maps the user's key presses to these).
func (s *View) Key(session, keys string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.m.UserKey(ctx, session, keys)
}

// Scroll turns the mouse wheel at (x, y) by (dx, dy), all in the page's CSS pixels, for the user.
func (s *View) Scroll(session string, x, y, dx, dy float64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.m.UserScroll(ctx, session, x, y, dx, dy)
}

// CloseView stops every stream of v.
func CloseView(s *View) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, cancel := range s.watches {
		cancel()
		delete(s.watches, id)
	}
}
