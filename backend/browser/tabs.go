package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Tab is one page of a session.
type Tab struct {
	ID     string // "t1", "t2", … within the session
	page   *rod.Page
	target proto.TargetTargetID

	mu      sync.Mutex
	last    *Snapshot // what the model saw last: refs are checked and diffs made against it
	dialogs []string  // dialogs answered since the last report
	answer  *DialogAnswer
	// crashed is set when Chromium reports the page's renderer died.
	crashed bool
	// loading is set while the page's main frame loads (from Page.frameStartedLoading to
	// frameStoppedLoading; loadCh is closed at each change); resumed when the host guard let
	// a navigation of it go on after a question, so the report waits for the new page.
	loading, resumed bool
	loadCh           chan struct{}
	// navigating is set while a navigation of the main frame waits for its commit (to navURL
	// when known): nothing can be evaluated in the page meanwhile (loading.go).
	navigating bool
	navURL     string
	// frames are the cross-origin frames its snapshots went into, numbered from 1 (frames.go).
	frames []frame
}

// loadWatch is the channel closed when loading next changes; t.mu is held.
func (t *Tab) loadWatch() <-chan struct{} {
	if t.loadCh == nil {
		t.loadCh = make(chan struct{})
	}
	return t.loadCh
}

// setLoading records the main frame's loading state.
func (t *Tab) setLoading(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.loading = on
	if t.loadCh != nil {
		close(t.loadCh)
	}
	t.loadCh = make(chan struct{})
}

// DialogAnswer is how the next JavaScript dialog (alert, confirm, prompt) is answered.
type DialogAnswer struct {
	Accept bool   `json:"accept"`
	Text   string `json:"text,omitempty"` // a prompt's answer
}

// sessionTabs are a session's tabs, in the order they opened.
type sessionTabs struct {
	tabs   []*Tab
	active string
	next   int
	busy   int
	opened []string // tabs opened by pages since the last report
	// downloads are the files the session's pages downloaded, in order.
	downloads []*download
	// paused is set while the user has taken the browser over; closed when handed back.
	paused chan struct{}
	// activeCh is closed when the active tab changes (the live view follows it).
	activeCh chan struct{}
	// workspace and files are the standing confinement of the session's pages (Confine);
	// openedFiles the local files outside it the model opened itself (AllowFile).
	workspace   string
	files       FileRule
	openedFiles map[string]bool
	hostGuard
}

// setActive makes tab id the active one and wakes the live view, which follows it.
func (s *sessionTabs) setActive(id string) {
	if s.active == id {
		return
	}
	s.active = id
	if s.activeCh != nil {
		close(s.activeCh)
		s.activeCh = nil
	}
}

// activeChanged is closed when the active tab next changes; the manager's lock is held.
func (s *sessionTabs) activeChanged() <-chan struct{} {
	if s.activeCh == nil {
		s.activeCh = make(chan struct{})
	}
	return s.activeCh
}

func (s *sessionTabs) find(id string) *Tab {
	for _, t := range s.tabs {
		if t.ID == id {
			return t
		}
	}
	return nil
}

func (s *sessionTabs) byTarget(id proto.TargetTargetID) *Tab {
	for _, t := range s.tabs {
		if t.target == id {
			return t
		}
	}
	return nil
}

// sessionLocked returns the session's tab set; m.mu is held.
func (m *Manager) sessionLocked(session string) *sessionTabs {
	s := m.sessions[session]
	if s == nil {
		s = &sessionTabs{}
		m.sessions[session] = s
	}
	return s
}

// use runs fn on the session's active tab (opening the browser and a blank tab if needed),
// with the idle timer held off meanwhile. A page or browser that died is dropped, so the next
// call starts afresh.
func (m *Manager) use(ctx context.Context, session string, fn func(t *Tab) error) error {
	if err := m.waitHandBack(ctx, session); err != nil {
		return err
	}
	m.mu.Lock()
	b, err := m.ensureLocked(ctx)
	if err != nil {
		m.mu.Unlock()
		return err
	}
	s := m.sessionLocked(session)
	t := s.find(s.active)
	if t != nil && t.isCrashed() {
		m.dropLocked(s, t) // its renderer died since the last call: start on a fresh tab
		t = nil
	}
	if t == nil && len(s.tabs) > 0 {
		t = s.tabs[len(s.tabs)-1]
		s.setActive(t.ID)
	}
	if t == nil {
		if t, err = m.openLocked(ctx, b, s); err != nil {
			m.mu.Unlock()
			return err
		}
	}
	s.busy++
	// A tab behind another gets no animation frames: input to it waits for one in vain.
	front := m.front != t.target
	m.front = t.target
	m.mu.Unlock()
	if front {
		_ = proto.TargetActivateTarget{TargetID: t.target}.Call(b.Context(ctx))
	}

	err = fn(t)

	m.mu.Lock()
	defer m.mu.Unlock()
	s.busy--
	if m.browser == b {
		m.touchLocked()
	}
	if err == nil || ctx.Err() != nil {
		return err
	}
	if m.browser == b && !m.aliveLocked() {
		m.stopLocked()
		return fmt.Errorf("the browser crashed (%v); the next call starts a fresh one", err)
	}
	// A page whose server did not answer in time holds every call: it is loading, not dead
	// (a navigation that failed, a crash among them, says so with an error of its own).
	if _, waiting := t.pendingNavigation(); waiting && !t.isCrashed() {
		var loading *loadingError
		if errors.As(err, &loading) {
			return err
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return &UserError{fmt.Sprintf("%v; %s", err, t.stillLoading())}
		}
	}
	// A failed load may be a renderer that died: the page would hang every later call.
	if t.isCrashed() || !pageAlive(t.page) {
		m.dropLocked(s, t)
		return fmt.Errorf("the page crashed (%v); the next call opens a fresh tab", err)
	}
	return err
}

// pageAlive reports whether the page still runs JavaScript.
func pageAlive(p *rod.Page) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*1e9)
	defer cancel()
	_, err := p.Context(ctx).Eval(`() => 1`)
	return err == nil
}

// openLocked opens a blank tab in session s and makes it active. Load a page in it after
// the lock is let go: the request gate (guard.go, files.go) takes the lock to find a
// request's session, and a load it pauses would wait on itself.
func (m *Manager) openLocked(ctx context.Context, b *rod.Browser, s *sessionTabs) (*Tab, error) {
	p, err := b.Context(ctx).Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		return nil, fmt.Errorf("open a tab: %w", err)
	}
	s.next++
	t := &Tab{ID: fmt.Sprintf("t%d", s.next), page: p.Context(context.Background()), target: p.TargetID}
	m.attachLocked(t)
	s.tabs = append(s.tabs, t)
	s.setActive(t.ID)
	m.front = t.target
	return t, nil
}

// attachLocked sets the tab's viewport and answers its dialogs as the model asked (or with
// the safe default: alerts accepted, confirms and prompts dismissed), so a dialog never
// blocks an action.
func (m *Manager) attachLocked(t *Tab) {
	_ = proto.EmulationSetDeviceMetricsOverride{Width: m.o.Width, Height: m.o.Height, DeviceScaleFactor: 1}.Call(t.page)
	go t.page.EachEvent(func(e *proto.PageJavascriptDialogOpening) {
		t.mu.Lock()
		a := t.answer
		t.answer = nil
		if a == nil {
			a = &DialogAnswer{Accept: e.Type == proto.PageDialogTypeAlert || e.Type == proto.PageDialogTypeBeforeunload}
		}
		verb := "dismissed"
		if a.Accept {
			verb = "accepted"
		}
		msg := fmt.Sprintf("%s %q was %s", e.Type, clip(e.Message, 200), verb)
		if a.Accept && e.Type == proto.PageDialogTypePrompt {
			msg += fmt.Sprintf(" with %q", a.Text)
		}
		t.dialogs = append(t.dialogs, msg)
		t.mu.Unlock()
		go func() { _ = proto.PageHandleJavaScriptDialog{Accept: a.Accept, PromptText: a.Text}.Call(t.page) }()
	}, func(e *proto.PageFrameRequestedNavigation) {
		if e.FrameID == proto.PageFrameID(t.target) && e.Disposition == proto.PageClientNavigationDispositionCurrentTab {
			t.setNavURL(e.URL)
		}
	}, func(e *proto.PageNavigatedWithinDocument) {
		if e.FrameID == proto.PageFrameID(t.target) {
			t.setNavURL("") // a fragment or history.pushState: nothing to wait for
		}
	}, func(e *proto.PageFrameStartedLoading) {
		if e.FrameID == proto.PageFrameID(t.target) {
			t.setLoading(true)
			t.setNavigating(true)
		}
	}, func(e *proto.PageFrameNavigated) {
		if e.Frame.ID == proto.PageFrameID(t.target) {
			t.setNavigating(false) // committed: the new document answers calls
		}
	}, func(e *proto.PageFrameStoppedLoading) {
		if e.FrameID == proto.PageFrameID(t.target) {
			t.setNavigating(false) // also a navigation that failed or was cancelled
			t.setLoading(false)
		}
	}, func(e *proto.InspectorTargetCrashed) {
		t.mu.Lock()
		t.crashed = true
		t.mu.Unlock()
	})()
}

// watchTargets adopts tabs that pages open (window.open, target=_blank) into the session of
// the page that opened them.
func (m *Manager) watchTargets(b *rod.Browser) {
	go b.EachEvent(func(e *proto.TargetTargetCreated) {
		if e.TargetInfo.Type != proto.TargetTargetInfoTypePage || e.TargetInfo.OpenerID == "" {
			return
		}
		m.opened(b, e.TargetInfo)
		go m.adopt(b, e.TargetInfo)
	}, func(e *proto.TargetTargetDestroyed) {
		m.forget(b, e.TargetID) // closed by its page (window.close) or by the host guard
		m.firstDecided(e.TargetID)
	})()
}

func (m *Manager) adopt(b *rod.Browser, info *proto.TargetTargetInfo) {
	m.mu.Lock()
	var owner *sessionTabs
	for _, s := range m.sessions {
		if m.browser == b && s.byTarget(info.OpenerID) != nil && s.byTarget(info.TargetID) == nil {
			owner = s
		}
	}
	m.mu.Unlock()
	if owner == nil {
		return
	}
	// Attaching takes a round trip or two: not under the lock the running action's report needs.
	p, err := b.PageFromTarget(info.TargetID)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.browser != b || owner.byTarget(info.TargetID) != nil {
		return
	}
	owner.next++
	t := &Tab{ID: fmt.Sprintf("t%d", owner.next), page: p, target: info.TargetID}
	m.attachLocked(t)
	owner.tabs = append(owner.tabs, t)
	owner.opened = append(owner.opened, t.ID)
	m.front = info.TargetID // Chromium shows a tab a page opens in front
}

// forget drops the tab of a target that is gone.
func (m *Manager) forget(b *rod.Browser, id proto.TargetTargetID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.browser != b {
		return
	}
	for _, s := range m.sessions {
		if t := s.byTarget(id); t != nil {
			m.dropLocked(s, t)
			for i, o := range s.opened {
				if o == t.ID {
					s.opened = append(s.opened[:i], s.opened[i+1:]...)
					break
				}
			}
		}
	}
}

// dropLocked forgets a tab (closed or crashed).
func (m *Manager) dropLocked(s *sessionTabs, t *Tab) {
	for i, x := range s.tabs {
		if x == t {
			s.tabs = append(s.tabs[:i], s.tabs[i+1:]...)
			break
		}
	}
	if s.active == t.ID {
		next := ""
		if n := len(s.tabs); n > 0 {
			next = s.tabs[n-1].ID
		}
		s.setActive(next)
	}
	go func() { _ = t.page.Close() }()
}

// TabInfo describes a tab for the model and the UI.
type TabInfo struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active"`
}

// Tabs lists the session's tabs.
func (m *Manager) Tabs(ctx context.Context, session string) []TabInfo {
	m.mu.Lock()
	s := m.sessionLocked(session)
	tabs := append([]*Tab(nil), s.tabs...)
	active := s.active
	m.mu.Unlock()
	var out []TabInfo
	for _, t := range tabs {
		info := TabInfo{ID: t.ID, Active: t.ID == active}
		cctx, cancel := context.WithTimeout(ctx, 2*1e9)
		// A tab's title is its page's: judged like the page (files.go) before it is told.
		err := m.judge(cctx, session, t)
		if ti, ierr := t.page.Context(cctx).Info(); ierr == nil {
			info.URL, info.Title = ti.URL, ti.Title
		}
		cancel()
		switch {
		case shownFile(err):
			info.URL, info.Title = "about:blank", "(closed: "+err.Error()+")"
		case err != nil:
			info.Title = "" // not judged (still loading?): its URL only
		}
		out = append(out, info)
	}
	return out
}

// OpenTab opens a tab at url in the session and makes it active.
func (m *Manager) OpenTab(ctx context.Context, session, url string) (string, error) {
	m.mu.Lock()
	b, err := m.ensureLocked(ctx)
	if err != nil {
		m.mu.Unlock()
		return "", err
	}
	t, err := m.openLocked(ctx, b, m.sessionLocked(session))
	m.mu.Unlock()
	if err != nil {
		return "", err
	}
	if url != "" && url != "about:blank" {
		err = navigate(ctx, t, url) // outside the lock (see openLocked)
	}
	return t.ID, err
}

// SwitchTab makes tab id the session's active tab.
func (m *Manager) SwitchTab(session, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	t := s.find(id)
	if t == nil {
		return &UserError{fmt.Sprintf("there is no tab %s: list the tabs", id)}
	}
	s.setActive(id)
	m.front = t.target
	go func() { _, _ = t.page.Activate() }()
	return nil
}

// CloseTab closes tab id of the session ("": the active one).
func (m *Manager) CloseTab(session, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	if id == "" {
		id = s.active
	}
	t := s.find(id)
	if t == nil {
		return &UserError{fmt.Sprintf("there is no tab %s: list the tabs", id)}
	}
	m.dropLocked(s, t)
	return nil
}

// CloseSession closes the session's tabs (the session was deleted).
func (m *Manager) CloseSession(session string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[session]
	if s == nil {
		return
	}
	for _, t := range append([]*Tab(nil), s.tabs...) {
		m.dropLocked(s, t)
	}
	delete(m.sessions, session)
}

// takeOpened returns the tabs pages opened since the last call.
func (m *Manager) takeOpened(session string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	out := s.opened
	s.opened = nil
	return out
}

// UserError is a failure the model caused and can correct (a bad URL, an unknown tab).
type UserError struct{ Msg string }

func (e *UserError) Error() string { return e.Msg }

// StaleRefError is a ref that names no element of the page any more.
type StaleRefError struct{ Ref string }

func (e *StaleRefError) Error() string {
	return fmt.Sprintf("ref %s is not on the page any more (or never was): take a new snapshot", e.Ref)
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len([]rune(s)) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}

func (t *Tab) isCrashed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.crashed
}
