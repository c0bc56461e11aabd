package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
)

// Action is one step of a batch: what to do, to which ref, with what.
type Action struct {
	// Do is click, dblclick, type, select, press, hover, scroll, upload, wait, dialog or save
	// (a download, Text its name, to the path in Values).
	Do  string `json:"do"`
	Ref string `json:"ref,omitempty"`
	// Text is what type enters, what wait waits for, or a prompt's answer (dialog).
	Text string `json:"text,omitempty"`
	// Submit presses Enter after type.
	Submit bool `json:"submit,omitempty"`
	// Keys are pressed by press: "Enter", "Escape", "Control+a", "ArrowDown ArrowDown".
	Keys string `json:"keys,omitempty"`
	// Values are the options select picks (by text or value), or the files upload sets.
	Values []string `json:"values,omitempty"`
	// Gone makes wait wait for Text or Ref to disappear.
	Gone bool `json:"gone,omitempty"`
	// Idle makes wait wait for the network to be quiet.
	Idle bool `json:"idle,omitempty"`
	// URL makes wait wait for a navigation: until the page's URL contains it (or, with Gone,
	// no longer does).
	URL string `json:"url,omitempty"`
	// Accept answers the next dialog (dialog).
	Accept bool `json:"accept,omitempty"`
	// Y scrolls by this many pixels (negative: up); 0 scrolls Ref into view or one screen down.
	Y int `json:"y,omitempty"`
	// TimeoutMS bounds wait (default 5000).
	TimeoutMS int `json:"timeout_ms,omitempty"`
}

// Report is what an action tells the model and the UI.
type Report struct {
	Text  string // for the model
	URL   string
	Title string
	Tab   string
}

// ActionTimeout bounds one action (a click that hangs, a page that never loads).
const ActionTimeout = 20 * time.Second

// Navigate opens url in the session's active tab ("back", "forward", "reload" move in its
// history) and reports the page.
func (m *Manager) Navigate(ctx context.Context, session, target string) (Report, error) {
	var rep Report
	err := m.use(ctx, session, func(t *Tab) error {
		ctx, cancel := m.actionContext(ctx, session)
		defer cancel()
		var err error
		switch target {
		case "back":
			err = history(ctx, t, -1)
		case "forward":
			err = history(ctx, t, 1)
		case "reload":
			err = t.page.Context(ctx).Reload()
			if err == nil {
				err = t.page.Context(ctx).WaitLoad()
			}
		default:
			err = navigate(ctx, t, target)
		}
		if err != nil {
			if refused := m.takeRefused(session); len(refused) > 0 {
				// The host guard aborted the load (or a hop of its redirects): say why.
				return &UserError{strings.Join(refused, "\n") + "\nThe tab stays on " + m.CurrentURL(session)}
			}
			return err
		}
		rep, err = m.report(ctx, session, t, nil, true)
		return err
	})
	return rep, err
}

// history goes delta steps back or forward, and says so when there is nowhere to go.
func history(ctx context.Context, t *Tab, delta int) error {
	h, err := proto.PageGetNavigationHistory{}.Call(t.page.Context(ctx))
	if err != nil {
		return err
	}
	i := h.CurrentIndex + delta
	if i < 0 || i >= len(h.Entries) {
		return &UserError{"there is no page to go to in that direction"}
	}
	if err := (proto.PageNavigateToHistoryEntry{EntryID: h.Entries[i].ID}).Call(t.page.Context(ctx)); err != nil {
		return err
	}
	// A page restored from the back-forward cache fires no load event: wait for its URL.
	return t.page.Context(ctx).Wait(rod.Eval(`(u) => location.href === u && document.readyState === 'complete'`, h.Entries[i].URL))
}

func navigate(ctx context.Context, t *Tab, target string) error {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" {
		return &UserError{fmt.Sprintf("%q is not a URL: give one with its scheme (http://, https://, file://)", target)}
	}
	p := t.page.Context(ctx)
	if err := p.Navigate(target); err != nil {
		var nav *rod.NavigationError
		if errors.As(err, &nav) {
			return &UserError{fmt.Sprintf("%s did not load (%s)", target, nav.Reason)}
		}
		return err
	}
	return p.WaitLoad()
}

// Snapshot reports the active tab's page from line from on, and remembers it for diffs.
func (m *Manager) Snapshot(ctx context.Context, session string, from int) (Report, error) {
	var rep Report
	err := m.use(ctx, session, func(t *Tab) error {
		ctx, cancel := context.WithTimeout(ctx, ActionTimeout)
		defer cancel()
		if t.awaitCommit(ctx, m.o.CommitWait) {
			url, _ := t.pendingNavigation()
			rep = Report{Text: t.stillLoading(), URL: url, Tab: t.ID}
			return nil
		}
		s, err := m.judged(ctx, session, t)
		if err != nil {
			return err
		}
		t.mu.Lock()
		t.last = s
		t.mu.Unlock()
		text := s.Render(t.ID, from)
		if refused := m.takeRefused(session); len(refused) > 0 {
			text = strings.Join(refused, "\n") + "\n" + text
		}
		rep = Report{Text: text, URL: s.URL, Title: s.Title, Tab: t.ID}
		return nil
	})
	return rep, err
}

// judged snapshots tab t's page, judging what it shows before and after (files.go).
func (m *Manager) judged(ctx context.Context, session string, t *Tab) (*Snapshot, error) {
	if err := m.judge(ctx, session, t); err != nil {
		return nil, err
	}
	s, err := take(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := m.judge(ctx, session, t); err != nil {
		return nil, err
	}
	return s, nil
}

// Act runs the actions in order on the session's active tab and reports what changed. It
// stops at the first that fails, saying which and why.
func (m *Manager) Act(ctx context.Context, session string, actions []Action) (Report, error) {
	var rep Report
	err := m.use(ctx, session, func(t *Tab) error {
		ctx, cancel := m.actionContext(ctx, session)
		defer cancel()
		var notes []string
		for i, a := range actions {
			var note string
			var err error
			if a.Do == "save" {
				note, err = m.save(ctx, session, a)
			} else {
				note, err = act(ctx, t, a)
			}
			if err != nil {
				prefix := ""
				if len(actions) > 1 {
					prefix = fmt.Sprintf("action %d (%s) failed, %d done before it: ", i+1, a.Do, i)
				}
				var stale *StaleRefError
				var user *UserError
				if errors.As(err, &stale) || errors.As(err, &user) {
					return &UserError{prefix + err.Error()}
				}
				if ctx.Err() != nil {
					if _, waiting := t.pendingNavigation(); waiting {
						return &loadingError{prefix + "timed out: " + t.stillLoading()}
					}
					return &UserError{prefix + "timed out: the page did not respond in time"}
				}
				return fmt.Errorf("%s%w", prefix, err)
			}
			if note != "" {
				notes = append(notes, note)
			}
		}
		var err error
		rep, err = m.report(ctx, session, t, notes, false)
		return err
	})
	return rep, err
}

// element finds the element of ref on the page (or in one of its cross-origin frames).
func element(ctx context.Context, t *Tab, ref string) (*rod.Element, error) {
	if ref == "" {
		return nil, &UserError{"this action needs a ref from the snapshot"}
	}
	p, err := t.pageOf(ctx, frameOfRef(ref))
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &StaleRefError{ref}
	}
	return elementIn(ctx, p, ref)
}

// elementIn finds the element of ref in page p's document.
func elementIn(ctx context.Context, p *rod.Page, ref string) (*rod.Element, error) {
	p = p.Context(ctx)
	res, err := p.Evaluate(rod.Eval(`(ref) => { const T = window.__tofu; const w = T && T.refs.get(ref);
		const el = w && w.deref(); return el && el.isConnected ? el : null; }`, ref).ByObject())
	if err != nil {
		return nil, err
	}
	if res.Subtype != proto.RuntimeRemoteObjectSubtypeNode {
		return nil, &StaleRefError{ref}
	}
	return p.ElementFromObject(res)
}

// act performs one action; note is what the model should know of it beyond the page.
func act(ctx context.Context, t *Tab, a Action) (note string, err error) {
	switch a.Do {
	case "click", "dblclick":
		el, err := element(ctx, t, a.Ref)
		if err != nil {
			return "", err
		}
		return "", click(ctx, t, el, a.Do == "dblclick")
	case "hover":
		el, err := element(ctx, t, a.Ref)
		if err != nil {
			return "", err
		}
		return "", hover(ctx, t, el)
	case "type":
		el, err := element(ctx, t, a.Ref)
		if err != nil {
			return "", err
		}
		if err := typeInto(ctx, t, el, a.Text); err != nil {
			return "", err
		}
		if a.Submit {
			return "", t.page.Context(ctx).Keyboard.Type(input.Enter)
		}
		return "", nil
	case "select":
		el, err := element(ctx, t, a.Ref)
		if err != nil {
			return "", err
		}
		return "", selectOptions(ctx, el, a.Values)
	case "press":
		if a.Ref != "" {
			el, err := element(ctx, t, a.Ref)
			if err != nil {
				return "", err
			}
			if err := focus(el); err != nil {
				return "", err
			}
		}
		return "", press(ctx, t.page, a.Keys)
	case "scroll":
		if a.Ref != "" {
			el, err := element(ctx, t, a.Ref)
			if err != nil {
				return "", err
			}
			return "", (proto.DOMScrollIntoViewIfNeeded{ObjectID: el.Object.ObjectID}).Call(t.page.Context(ctx))
		}
		y := a.Y
		if y == 0 {
			y = 600
		}
		_, err := t.page.Context(ctx).Eval(`(y) => window.scrollBy(0, y)`, y)
		return "", err
	case "upload":
		el, err := element(ctx, t, a.Ref)
		if err != nil {
			return "", err
		}
		if len(a.Values) == 0 {
			return "", &UserError{"upload needs the files in values"}
		}
		return "", el.SetFiles(a.Values)
	case "wait":
		return wait(ctx, t, a)
	case "dialog":
		t.mu.Lock()
		t.answer = &DialogAnswer{Accept: a.Accept, Text: a.Text}
		t.mu.Unlock()
		return "the next dialog will be " + map[bool]string{true: "accepted", false: "dismissed"}[a.Accept], nil
	}
	return "", &UserError{fmt.Sprintf("unknown action %q: use click, dblclick, type, select, press, hover, scroll, upload, wait, dialog or save", a.Do)}
}

// jsClick clicks el n times from the page's script, with a dblclick after two: for an element
// the mouse cannot reach.
func jsClick(el *rod.Element, n int) error {
	_, err := el.Eval(`function (n) { for (let i = 0; i < n; i++) this.click();
		if (n === 2) this.dispatchEvent(new MouseEvent('dblclick', { bubbles: true })); }`, n)
	return err
}

// click clicks el as a person would: scrolled into view, the mouse moved over it, pressed.
// A control shown only on hover gets its row hovered first; a control covered by another
// element (a styled checkbox under its label) is clicked through the page's own click().
// Only plain CDP calls and functions on the element itself are used, so elements inside
// iframes and shadow roots work alike.
func click(ctx context.Context, t *Tab, el *rod.Element, double bool) error {
	n := 1
	if double {
		n = 2
	}
	el = el.Context(ctx)
	if err := revealIfHidden(ctx, t, el); err != nil {
		return err
	}
	pt, hit, err := aim(ctx, t, el)
	if err != nil {
		return err
	}
	if !hit {
		return jsClick(el, n)
	}
	mouse := t.page.Context(ctx).Mouse
	if err := mouse.MoveTo(*pt); err != nil {
		return err
	}
	// Leaving what the mouse hovered (a menu shown on :hover) can move the element: once the
	// page drew the new hover state, aim again, so the press lands on the element.
	if _, err := el.Eval(`function () { return new Promise((done) => document.hidden ? done() : requestAnimationFrame(() => done())); }`); err != nil {
		return err
	}
	again, hit, err := aim(ctx, t, el)
	if err != nil {
		return err
	}
	if !hit {
		return jsClick(el, n)
	}
	if *again != *pt {
		if err := mouse.MoveTo(*again); err != nil {
			return err
		}
	}
	return mouse.Click(proto.InputMouseButtonLeft, n)
}

// hover moves the mouse over el.
func hover(ctx context.Context, t *Tab, el *rod.Element) error {
	el = el.Context(ctx)
	if err := revealIfHidden(ctx, t, el); err != nil {
		return err
	}
	pt, _, err := aim(ctx, t, el)
	if err != nil {
		return err
	}
	return t.page.Context(ctx).Mouse.MoveTo(*pt)
}

// aim scrolls el into view and returns a point inside it (in the page's coordinates) and
// whether el, not something over it, is what a click there would hit.
func aim(ctx context.Context, t *Tab, el *rod.Element) (*proto.Point, bool, error) {
	if err := (proto.DOMScrollIntoViewIfNeeded{ObjectID: el.Object.ObjectID}).Call(t.page.Context(ctx)); err != nil {
		return nil, false, err
	}
	shape, err := el.Shape()
	if err != nil {
		return nil, false, err
	}
	pt := shape.OnePointInside()
	if pt == nil {
		return nil, false, &UserError{"the element has no size on the page"}
	}
	res, err := el.Eval(`function () {
		const r = this.getBoundingClientRect();
		const root = this.getRootNode();
		const hit = (root.elementFromPoint ? root : document).elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		return !!hit && (hit === this || this.contains(hit)) && getComputedStyle(this).pointerEvents !== 'none'; }`)
	if err != nil {
		return nil, false, err
	}
	return pt, res.Value.Bool(), nil
}

// revealIfHidden hovers the nearest visible ancestor of an element that is not shown, which
// shows controls styled to appear on :hover, and waits for it to show.
func revealIfHidden(ctx context.Context, t *Tab, el *rod.Element) error {
	vis, err := el.Eval(`function () { return this.checkVisibility(); }`)
	if err != nil || vis.Value.Bool() {
		return err
	}
	res, err := el.Evaluate(rod.Eval(`function () { let p = this.parentElement;
		while (p && !p.checkVisibility()) p = p.parentElement; return p; }`).ByObject())
	if err != nil {
		return err
	}
	if res.Subtype != proto.RuntimeRemoteObjectSubtypeNode {
		return &UserError{"the element is hidden and no visible container shows it"}
	}
	parent, err := t.page.Context(ctx).ElementFromObject(res)
	if err != nil {
		return err
	}
	pt, _, err := aim(ctx, t, parent)
	if err != nil {
		return err
	}
	if err := t.page.Context(ctx).Mouse.MoveTo(*pt); err != nil {
		return err
	}
	return t.page.Context(ctx).Wait(&rod.EvalOptions{JS: `function () { return this.checkVisibility(); }`, ThisObj: el.Object, ByValue: true})
}

// typeInto replaces the value of a text field or editable element with text.
func typeInto(ctx context.Context, t *Tab, el *rod.Element, text string) error {
	el = el.Context(ctx)
	if err := (proto.DOMScrollIntoViewIfNeeded{ObjectID: el.Object.ObjectID}).Call(t.page.Context(ctx)); err != nil {
		return err
	}
	if _, err := el.Eval(`function () { this.focus(); }`); err != nil {
		return err
	}
	// Select what is there, so typing replaces it.
	if _, err := el.Eval(`function () { if (this.select) this.select(); else if (this.isContentEditable) {
		const r = document.createRange(); r.selectNodeContents(this); const s = getSelection(); s.removeAllRanges(); s.addRange(r); } }`); err != nil {
		return err
	}
	p := t.page.Context(ctx)
	if text == "" {
		return p.Keyboard.Type(input.Backspace)
	}
	return p.InsertText(text)
}

func selectOptions(ctx context.Context, el *rod.Element, values []string) error {
	res, err := el.Context(ctx).Eval(`function (want) {
		if (this.tagName !== 'SELECT') return 'not a select: click its options instead';
		const missing = [];
		const opts = Array.from(this.options);
		if (this.multiple) for (const o of opts) o.selected = false;
		for (const w of want) {
			const o = opts.find((o) => o.value === w || o.text.trim() === w) || opts.find((o) => o.text.trim().toLowerCase().includes(w.toLowerCase()));
			if (!o) { missing.push(w); continue; }
			o.selected = true;
		}
		if (missing.length) return 'no option ' + missing.map((m) => JSON.stringify(m)).join(', ') + '; options: ' + opts.map((o) => o.text.trim()).join(' | ');
		this.dispatchEvent(new Event('input', { bubbles: true }));
		this.dispatchEvent(new Event('change', { bubbles: true }));
		return '';
	}`, values)
	if err != nil {
		return err
	}
	if msg := res.Value.Str(); msg != "" {
		return &UserError{msg}
	}
	return nil
}

// keyNames are the keys press knows by name, besides single characters.
var keyNames = map[string]input.Key{
	"enter": input.Enter, "escape": input.Escape, "esc": input.Escape, "tab": input.Tab,
	"backspace": input.Backspace, "delete": input.Delete, "space": input.Space,
	"arrowup": input.ArrowUp, "arrowdown": input.ArrowDown, "arrowleft": input.ArrowLeft, "arrowright": input.ArrowRight,
	"up": input.ArrowUp, "down": input.ArrowDown, "left": input.ArrowLeft, "right": input.ArrowRight,
	"home": input.Home, "end": input.End, "pageup": input.PageUp, "pagedown": input.PageDown,
	"control": input.ControlLeft, "ctrl": input.ControlLeft, "shift": input.ShiftLeft,
	"alt": input.AltLeft, "meta": input.MetaLeft, "cmd": input.MetaLeft,
}

// press presses keys: space-separated chords such as "Control+a Backspace Enter".
func press(ctx context.Context, p *rod.Page, keys string) error {
	if strings.TrimSpace(keys) == "" {
		return &UserError{"press needs keys, e.g. \"Enter\" or \"Control+a\""}
	}
	for _, chord := range strings.Fields(keys) {
		var ks []input.Key
		for _, name := range strings.Split(chord, "+") {
			k, ok := keyNames[strings.ToLower(name)]
			if !ok && len(name) == 1 {
				k, ok = input.Key(name[0]), true
			}
			if !ok {
				return &UserError{fmt.Sprintf("unknown key %q: use names like Enter, Escape, Tab, ArrowDown, Control+a", name)}
			}
			ks = append(ks, k)
		}
		kb := p.Context(ctx).KeyActions()
		for _, k := range ks {
			kb = kb.Press(k)
		}
		for i := len(ks) - 1; i >= 0; i-- {
			kb = kb.Release(ks[i])
		}
		if err := kb.Do(); err != nil {
			return err
		}
	}
	return nil
}

// wait waits for text or a ref to appear (or go, with Gone), or the network to be quiet.
func wait(ctx context.Context, t *Tab, a Action) (string, error) {
	d := time.Duration(a.TimeoutMS) * time.Millisecond
	if d <= 0 {
		d = 5 * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	p := t.page.Context(wctx)
	if a.Ref != "" {
		fp, err := t.pageOf(wctx, frameOfRef(a.Ref)) // a ref inside a cross-origin frame
		if err != nil {
			return "", &StaleRefError{a.Ref}
		}
		p = fp
	}
	var err error
	switch {
	case a.Idle:
		p.WaitRequestIdle(300*time.Millisecond, nil, nil, nil)()
		err = wctx.Err()
	case a.URL != "":
		err = p.Wait(rod.Eval(`(u, gone) => location.href.includes(u) !== gone && document.readyState !== 'loading'`, a.URL, a.Gone))
	case a.Text != "" || a.Ref != "":
		err = p.Wait(rod.Eval(`(text, ref, gone) => {
			let found;
			if (ref) { const T = window.__tofu; const w = T && T.refs.get(ref); const el = w && w.deref();
				found = !!(el && el.isConnected && el.checkVisibility()); }
			else found = (document.body && document.body.innerText || '').includes(text);
			return gone ? !found : found; }`, a.Text, a.Ref, a.Gone))
	default:
		return "", &UserError{"wait needs text, ref, url or idle"}
	}
	if err != nil {
		if ctx.Err() == nil && wctx.Err() != nil {
			what := a.Text
			if a.Ref != "" {
				what = a.Ref
			}
			if a.URL != "" {
				what = "the URL to contain " + a.URL
			}
			if a.Idle {
				what = "the network to be idle"
			}
			return fmt.Sprintf("waited %s for %q in vain", d, what), nil
		}
		return "", err
	}
	return "", nil
}

// settle lets the page finish what the action started: a load in progress, then one frame.
func settle(ctx context.Context, p *rod.Page) {
	sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, _ = p.Context(sctx).Eval(`() => new Promise((done) => {
		// A tab in the background (another opened over it) gets no animation frames.
		const frame = () => document.hidden ? setTimeout(done, 0) : requestAnimationFrame(() => setTimeout(done, 0));
		if (document.readyState === 'complete') frame(); else addEventListener('load', frame, { once: true });
		setTimeout(done, 2000); })`)
}

// report snapshots the page after an action and says what changed: the diff against the
// last snapshot (or the whole page when that is shorter, or full is set), the URL when it
// changed, dialogs answered, tabs opened.
func (m *Manager) report(ctx context.Context, session string, t *Tab, notes []string, full bool) (Report, error) {
	settle(ctx, t.page)
	if m.awaitQuestions(ctx, session, t) {
		settle(ctx, t.page)
	}
	var s *Snapshot
	if !t.awaitCommit(ctx, m.o.CommitWait) {
		var err error
		if s, err = m.judged(ctx, session, t); err != nil {
			return Report{}, err
		}
	}
	t.mu.Lock()
	old := t.last
	if s != nil {
		t.last = s
	}
	dialogs := t.dialogs
	t.dialogs = nil
	t.mu.Unlock()
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	for _, d := range dialogs {
		b.WriteString("dialog: " + d + "\n")
	}
	for _, r := range m.takeRefused(session) {
		b.WriteString(r + "\n")
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	for _, d := range m.takeDownloads(dctx, session) {
		b.WriteString(d + "\n")
	}
	cancel()
	for _, id := range m.takeOpened(session) {
		fmt.Fprintf(&b, "a new tab %s opened (browser_tabs to switch to it)\n", id)
	}
	if s == nil {
		b.WriteString(t.stillLoading())
		url, _ := t.pendingNavigation()
		return Report{Text: b.String(), URL: url, Tab: t.ID}, nil
	}
	diff, ok := "", false
	if !full {
		diff, ok = s.Diff(old)
	}
	switch {
	case ok && diff == "":
		b.WriteString(s.header(t.ID) + "\nno visible change")
	case ok:
		b.WriteString(s.header(t.ID) + "\nchanges (other lines as before):\n" + diff)
	default:
		b.WriteString(s.Render(t.ID, 0))
	}
	return Report{Text: b.String(), URL: s.URL, Title: s.Title, Tab: t.ID}, nil
}

// Ref returns what the last snapshot of the session's active tab says of ref (ok false: not
// in it). It never touches the page: the permission check calls it before the action runs.
func (m *Manager) Ref(session, ref string) (RefMeta, string, bool) {
	m.mu.Lock()
	s := m.sessions[session]
	var t *Tab
	if s != nil {
		t = s.find(s.active)
	}
	m.mu.Unlock()
	if t == nil {
		return RefMeta{}, "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		return RefMeta{}, "", false
	}
	meta, ok := t.last.Meta[ref]
	return meta, t.last.URL, ok
}

// CurrentURL is the URL of the session's active tab as last seen ("" : none).
func (m *Manager) CurrentURL(session string) string {
	m.mu.Lock()
	s := m.sessions[session]
	var t *Tab
	if s != nil {
		t = s.find(s.active)
	}
	m.mu.Unlock()
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		return ""
	}
	return t.last.URL
}

func focus(el *rod.Element) error {
	_, err := el.Eval(`function () { this.focus(); }`)
	return err
}

// save copies a download (Text: its name, "" the last) to the path in Values.
func (m *Manager) save(ctx context.Context, session string, a Action) (string, error) {
	if len(a.Values) != 1 {
		return "", &UserError{"save needs values: [the workspace path to save the download to]"}
	}
	dest, err := m.SaveDownload(ctx, session, a.Text, a.Values[0])
	if err != nil {
		return "", err
	}
	return "saved the download to " + dest, nil
}
