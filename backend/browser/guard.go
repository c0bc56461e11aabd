package browser

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// The host guard. With web access on, every document a session's pages load (the top page
// and its frames, every redirect hop, tabs a page opens) is paused by CDP Fetch, browser-wide,
// until its host is approved for the session: a host the model opened itself (the tool asked
// before the call), or one the running tool call asks about now, through its HostAsk. A link,
// a form, a script, a meta refresh or a server redirect to any other host therefore asks too,
// from the call that caused it; refused, the request is aborted and the page stays where it
// was. With no call running (a timer long after), it is refused and the next report says so.
// With web access off none of this runs: the dead proxy already keeps every page on loopback.

// HostAsk asks, from a running tool call, whether the session's pages may load documents from
// host (rawURL is the document, for the question). It blocks until the user or a rule answers;
// why is what the model reads when it is refused.
type HostAsk func(host, rawURL string) (ok bool, why string)

// hostGuard is a session's share of the guard; the Manager's lock guards it (but asking, one
// question at a time, holds only ask).
type hostGuard struct {
	hosts   map[string]bool // approved for the session
	askers  []*asker        // the running tool calls, the latest last
	asking  int             // questions open now
	refused []string        // for the next report
	// opening are tabs a page just opened whose first document is not decided yet: the
	// report of the action that opened them waits for that (a refusal to tell).
	opening map[proto.TargetTargetID]bool
	changed chan struct{} // closed (and replaced) when asking or opening changes
	ask     sync.Mutex    // the approval service takes one question per call at a time
}

type asker struct {
	fn       HostAsk
	files    FileRule // the call's rule for local files (nil: the session's standing one)
	inflight int
}

// notifyLocked wakes whoever waits on the session's questions; m.mu is held.
func (g *hostGuard) notifyLocked() {
	if g.changed != nil {
		close(g.changed)
	}
	g.changed = make(chan struct{})
}

// watchLocked is the channel closed at the next change; m.mu is held.
func (g *hostGuard) watchLocked() <-chan struct{} {
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return g.changed
}

// AllowHost approves host (host:port, as in a URL) for the session's pages: the model opened
// it, with whatever approval that took.
func (m *Manager) AllowHost(session, host string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	if s.hosts == nil {
		s.hosts = map[string]bool{}
	}
	s.hosts[host] = true
}

// Asking makes ask the way the session's pages ask about new hosts, and files the rule for
// the local files they load, while a tool call runs. The returned release waits for the
// questions the call has open, then forgets it.
func (m *Manager) Asking(session string, ask HostAsk, files FileRule) (release func()) {
	a := &asker{fn: ask, files: files}
	m.mu.Lock()
	s := m.sessionLocked(session)
	s.askers = append(s.askers, a)
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for a.inflight > 0 {
			ch := s.watchLocked()
			m.mu.Unlock()
			<-ch
			m.mu.Lock()
		}
		for i, x := range s.askers {
			if x == a {
				s.askers = append(s.askers[:i], s.askers[i+1:]...)
				break
			}
		}
	}
}

// gate starts pausing every request of the browser for a local file (the file gate, always)
// and, with web access on, every document request (the host guard).
func (m *Manager) gate(b *rod.Browser, web bool) error {
	go b.EachEvent(func(e *proto.FetchRequestPaused) {
		go m.decide(b, e)
	})()
	patterns := []*proto.FetchRequestPattern{{URLPattern: "file:*", RequestStage: proto.FetchRequestStageRequest}}
	if web {
		patterns = append(patterns, &proto.FetchRequestPattern{
			URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument, RequestStage: proto.FetchRequestStageRequest,
		})
	}
	if err := (proto.FetchEnable{Patterns: patterns}).Call(b); err != nil {
		return fmt.Errorf("watch the pages' requests: %w", err)
	}
	return nil
}

// decide lets a paused request go on or aborts it (the page stays where it was).
func (m *Manager) decide(b *rod.Browser, e *proto.FetchRequestPaused) {
	var ok bool
	if isFileURL(e.Request.URL) {
		ok = m.allowedFile(b, e)
	} else {
		ok = m.allowed(b, e)
	}
	m.firstDecided(proto.TargetTargetID(e.FrameID))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ok {
		_ = proto.FetchContinueRequest{RequestID: e.RequestID}.Call(b.Context(ctx))
		return
	}
	_ = proto.FetchFailRequest{RequestID: e.RequestID, ErrorReason: proto.NetworkErrorReasonAborted}.Call(b.Context(ctx))
}

// allowed decides one document request: other schemes than http(s) pass (file:// has its own
// gate, about:blank and data: reach nobody); a host approved for the owning session passes;
// so does anything while the user has the browser (the user leads); else the running call of
// the session asks, and with none running it is refused.
func (m *Manager) allowed(b *rod.Browser, e *proto.FetchRequestPaused) bool {
	u, err := url.Parse(e.Request.URL)
	if err != nil {
		return false
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return true
	}
	s, t := m.ownerOf(b, e.FrameID)
	if s == nil {
		return false // no session's page: nobody approved anything for it
	}
	host := u.Host
	m.mu.Lock()
	if s.hosts[host] || s.paused != nil {
		m.mu.Unlock()
		return true
	}
	if len(s.askers) == 0 {
		s.refused = append(s.refused, fmt.Sprintf("stopped the page from opening %s: %s is not approved for this session and no call was running to ask (open it with browser_navigate, which asks)", clip(e.Request.URL, 200), host))
		m.mu.Unlock()
		closeIfBlankPopup(b, e.FrameID)
		return false
	}
	a := s.askers[len(s.askers)-1]
	a.inflight++
	s.asking++
	s.notifyLocked()
	m.mu.Unlock()

	s.ask.Lock()
	m.mu.Lock()
	ok := s.hosts[host] // approved while this waited its turn
	m.mu.Unlock()
	why := ""
	if !ok {
		ok, why = a.fn(host, e.Request.URL)
	}
	s.ask.Unlock()

	closed := !ok && closeIfBlankPopup(b, e.FrameID)
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok {
		if s.hosts == nil {
			s.hosts = map[string]bool{}
		}
		s.hosts[host] = true
		if t != nil && t.target == proto.TargetTargetID(e.FrameID) {
			t.mu.Lock()
			t.resumed = true // the report waits for the page it now loads
			t.mu.Unlock()
		}
	} else {
		note := fmt.Sprintf("refused to open %s: %s", clip(e.Request.URL, 200), why)
		if closed {
			note += " (the new tab it was to open in is closed)"
		}
		s.refused = append(s.refused, note)
	}
	a.inflight--
	s.asking--
	s.notifyLocked()
	return ok
}

// ownerOf finds the session (and tab, if it is one's main frame) a frame belongs to: a tab's
// own page, a tab a page opened (its opener's session), or a frame inside a tab.
func (m *Manager) ownerOf(b *rod.Browser, frame proto.PageFrameID) (*sessionTabs, *Tab) {
	byTarget := func(id proto.TargetTargetID) (*sessionTabs, *Tab) {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, s := range m.sessions {
			if t := s.byTarget(id); t != nil {
				return s, t
			}
		}
		return nil, nil
	}
	if s, t := byTarget(proto.TargetTargetID(frame)); s != nil {
		return s, t
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// A tab a page opened, not adopted yet: its opener (or the opener's opener) is a tab.
	id := proto.TargetTargetID(frame)
	for range 4 {
		info, err := proto.TargetGetTargetInfo{TargetID: id}.Call(b.Context(ctx))
		if err != nil || info.TargetInfo.OpenerID == "" {
			break
		}
		id = info.TargetInfo.OpenerID
		if s, _ := byTarget(id); s != nil {
			return s, nil
		}
	}
	// A frame in a tab's page.
	m.mu.Lock()
	type owned struct {
		s *sessionTabs
		t *Tab
	}
	var all []owned
	for _, s := range m.sessions {
		for _, t := range s.tabs {
			all = append(all, owned{s, t})
		}
	}
	m.mu.Unlock()
	for _, o := range all {
		tree, err := proto.PageGetFrameTree{}.Call(o.t.page.Context(ctx))
		if err == nil && hasFrame(tree.FrameTree, frame) {
			return o.s, nil
		}
	}
	return nil, nil
}

// closeIfBlankPopup closes a tab a page opened whose first page was refused: it would stay
// blank (and never draw, so a screenshot of it waits forever).
func closeIfBlankPopup(b *rod.Browser, frame proto.PageFrameID) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := proto.TargetGetTargetInfo{TargetID: proto.TargetTargetID(frame)}.Call(b.Context(ctx))
	if err != nil || info.TargetInfo.Type != proto.TargetTargetInfoTypePage || info.TargetInfo.OpenerID == "" ||
		info.TargetInfo.URL != "" && info.TargetInfo.URL != "about:blank" {
		return false
	}
	_, err = proto.TargetCloseTarget{TargetID: info.TargetInfo.TargetID}.Call(b.Context(ctx))
	return err == nil
}

func hasFrame(tree *proto.PageFrameTree, id proto.PageFrameID) bool {
	if tree == nil {
		return false
	}
	if tree.Frame != nil && tree.Frame.ID == id {
		return true
	}
	for _, c := range tree.ChildFrames {
		if hasFrame(c, id) {
			return true
		}
	}
	return false
}

// opened notes a tab a page of the session is opening (the guard is on).
func (m *Manager) opened(b *rod.Browser, info *proto.TargetTargetInfo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.browser != b || !m.guarding {
		return
	}
	for _, s := range m.sessions {
		if s.byTarget(info.OpenerID) != nil {
			if s.opening == nil {
				s.opening = map[proto.TargetTargetID]bool{}
			}
			s.opening[info.TargetID] = true
			s.notifyLocked()
		}
	}
}

// firstDecided notes that a new tab's first document was decided (or the tab is gone).
func (m *Manager) firstDecided(id proto.TargetTargetID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sessions {
		if s.opening[id] {
			delete(s.opening, id)
			s.notifyLocked()
		}
	}
}

// takeRefused returns what the guard stopped since the last report.
func (m *Manager) takeRefused(session string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	out := s.refused
	s.refused = nil
	return out
}

// awaitQuestions waits while a question about the session's pages is open, then, when one
// let tab t's page go on, for that page to load (at most loadWait). It reports whether it
// waited at all.
func (m *Manager) awaitQuestions(ctx context.Context, session string, t *Tab) bool {
	waited := false
	// A new tab that never navigates (window.open() of nothing) is not waited for long.
	octx, cancel := context.WithTimeout(ctx, openingWait)
	defer cancel()
	for {
		m.mu.Lock()
		s := m.sessionLocked(session)
		if octx.Err() != nil {
			s.opening = nil // tabs opened on nothing: no document of theirs to wait for
		}
		asking, opening, ch := s.asking > 0, len(s.opening) > 0, s.watchLocked()
		m.mu.Unlock()
		if !asking && !opening {
			break
		}
		waited = true
		done := ctx.Done()
		if !asking {
			done = octx.Done()
		}
		select {
		case <-ch:
		case <-done:
			if ctx.Err() != nil {
				return true
			}
		}
	}
	t.mu.Lock()
	resumed := t.resumed
	t.resumed = false
	t.mu.Unlock()
	if !resumed {
		return waited
	}
	lctx, cancel := context.WithTimeout(ctx, loadWait)
	defer cancel()
	for {
		t.mu.Lock()
		loading, ch := t.loading, t.loadWatch()
		t.mu.Unlock()
		if !loading {
			return true
		}
		select {
		case <-ch:
		case <-lctx.Done():
			return true
		}
	}
}

// loadWait bounds the wait for a page the user let load; openingWait for a new tab's first
// document to be decided.
const (
	loadWait    = 10 * time.Second
	openingWait = 3 * time.Second
)

// actionContext bounds an action to ActionTimeout, not counting the time questions about the
// session's pages are open: the user may take minutes to answer, the page may not.
func (m *Manager) actionContext(ctx context.Context, session string) (context.Context, context.CancelFunc) {
	actx, cancel := context.WithCancelCause(ctx)
	go func() {
		left := ActionTimeout
		for {
			m.mu.Lock()
			s := m.sessionLocked(session)
			open, ch := s.asking > 0, s.watchLocked()
			m.mu.Unlock()
			if open {
				select {
				case <-ch:
					continue
				case <-actx.Done():
					return
				}
			}
			start := time.Now()
			timer := time.NewTimer(left)
			select {
			case <-timer.C:
				cancel(context.DeadlineExceeded)
				return
			case <-ch:
				timer.Stop()
				left -= time.Since(start)
			case <-actx.Done():
				timer.Stop()
				return
			}
		}
	}()
	return actx, func() { cancel(context.Canceled) }
}
