package browser

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// The file gate. Local files are a read of the machine, so the browser loads a file:// URL
// only when the session that owns the page may read that file: every request for one (a tab's
// page, a frame, an <object>, an image, a redirect, a tab a page opens; any spelling, since
// Chromium reports its own canonical URL) is paused by CDP Fetch, browser-wide and whatever
// the web access, and goes on only if the session's FileRule allows the path; else it is
// aborted and the next report says so. Behind the gate, every tool judges the page it shows
// (its frames and their resources) before it returns anything: a page showing a local file
// the session may not read is left for about:blank and the call fails saying why.

// FileRule decides whether a session's pages may load the local file at path (a file URL's
// path as Chromium opens it, cleaned, links not resolved); why is what the model reads when
// they may not. It may ask the approval service (while a call runs), so it may block.
type FileRule func(path string) (ok bool, why string)

// Confine sets what the session's pages may touch when none of its calls runs (a page's timer
// long after): the workspace, the only place downloads are saved to, and the rule for local
// files (nil: none). A running call's own rule (Asking) comes first.
func (m *Manager) Confine(session, workspace string, rule FileRule) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	s.workspace, s.files = workspace, rule
}

// AllowFile lets the session's pages show the local file at path (links resolved): the model
// opened it itself, with whatever approval that took. The rule is not asked about it again.
func (m *Manager) AllowFile(session, path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessionLocked(session)
	if s.openedFiles == nil {
		s.openedFiles = map[string]bool{}
	}
	s.openedFiles[path] = true
}

// fileRuleLocked is the rule for the session's pages now: the latest running call's, else
// the standing one; the asker is the call (nil: none runs). m.mu is held.
func (s *sessionTabs) fileRuleLocked() (FileRule, *asker) {
	for i := len(s.askers) - 1; i >= 0; i-- {
		if a := s.askers[i]; a.files != nil {
			return a.files, a
		}
	}
	return s.files, nil
}

// checkFile applies the session's file rule to path, counting the question as open while it
// runs (the rule may ask a person: the action's time does not run meanwhile).
func (m *Manager) checkFile(s *sessionTabs, path string) (bool, string) {
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	m.mu.Lock()
	if s.openedFiles[real] {
		m.mu.Unlock()
		return true, ""
	}
	rule, a := s.fileRuleLocked()
	if rule == nil {
		m.mu.Unlock()
		return false, "no workspace is set for this session's pages"
	}
	if a != nil {
		a.inflight++
		s.asking++
		s.notifyLocked()
	}
	m.mu.Unlock()
	ok, why := rule(path)
	if a != nil {
		m.mu.Lock()
		a.inflight--
		s.asking--
		s.notifyLocked()
		m.mu.Unlock()
	}
	return ok, why
}

// allowedFile decides one paused request for a file:// URL.
func (m *Manager) allowedFile(b *rod.Browser, e *proto.FetchRequestPaused) bool {
	s, _ := m.ownerOf(b, e.FrameID)
	if s == nil {
		return false // no session's page: nobody may read anything for it
	}
	ok, why := false, ""
	path, err := FilePath(e.Request.URL)
	if err != nil {
		why = err.Error()
	} else {
		ok, why = m.checkFile(s, path)
	}
	if ok {
		return true
	}
	closed := closeIfBlankPopup(b, e.FrameID)
	note := fmt.Sprintf("refused to open %s: %s", clip(e.Request.URL, 200), why)
	if closed {
		note += " (the new tab it was to open in is closed)"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(s.refused) < maxRefusedNotes && !containsString(s.refused, note) {
		s.refused = append(s.refused, note)
	}
	return false
}

// maxRefusedNotes bounds what one report says of refused requests (a page of 500 local
// images outside the workspace says it once each up to this).
const maxRefusedNotes = 20

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ShownFileError is a page that showed a local file its session may not read: it was left
// for about:blank.
type ShownFileError struct{ URL, Why string }

func (e *ShownFileError) Error() string {
	return fmt.Sprintf("the page showed %s (%s), so it was closed (the tab is on about:blank); open a file outside the workspace with browser_navigate, which asks", clip(e.URL, 200), e.Why)
}

// judge checks the page tab t shows before a call returns anything of it: each of its frames
// and each resource they loaded that is a local file must be one the session may read. A page
// that shows another is left for about:blank (*ShownFileError). A page that cannot be
// inspected fails the call: nothing is shown unjudged.
func (m *Manager) judge(ctx context.Context, session string, t *Tab) error {
	jctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tree, err := proto.PageGetResourceTree{}.Call(t.page.Context(jctx))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("check what the page shows: %w", err)
	}
	var files []string
	collectFiles(tree.FrameTree, &files)
	if len(files) == 0 {
		return nil
	}
	m.mu.Lock()
	s := m.sessionLocked(session)
	m.mu.Unlock()
	seen := map[string]bool{}
	for _, u := range files {
		path, err := FilePath(u)
		why := ""
		ok := false
		if err != nil {
			why = err.Error()
		} else if seen[path] {
			continue
		} else {
			seen[path] = true
			ok, why = m.checkFile(s, path)
		}
		if !ok {
			t.leave()
			return &ShownFileError{URL: u, Why: why}
		}
	}
	return nil
}

// collectFiles lists the file:// URLs a frame tree shows: its documents and the resources
// they loaded (failed ones and error pages show nothing of the file).
func collectFiles(f *proto.PageFrameResourceTree, out *[]string) {
	if f == nil {
		return
	}
	if f.Frame != nil && f.Frame.UnreachableURL == "" && isFileURL(f.Frame.URL) {
		*out = append(*out, f.Frame.URL)
	}
	for _, r := range f.Resources {
		if !r.Failed && !r.Canceled && isFileURL(r.URL) {
			*out = append(*out, r.URL)
		}
	}
	for _, c := range f.ChildFrames {
		collectFiles(c, out)
	}
}

func isFileURL(u string) bool {
	return strings.HasPrefix(strings.ToLower(CanonicalURL(u)), "file:")
}

// leave takes the tab away from what it shows, to about:blank, and forgets its snapshot.
func (t *Tab) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = proto.PageNavigate{URL: "about:blank"}.Call(t.page.Context(ctx))
	t.mu.Lock()
	t.last = nil
	t.mu.Unlock()
}

// shownFile reports whether err is a page judged to show a file it may not.
func shownFile(err error) bool {
	var e *ShownFileError
	return errors.As(err, &e)
}
