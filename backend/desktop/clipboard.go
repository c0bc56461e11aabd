package desktop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"
)

// Selections Tofu reads and writes: "clipboard" (ctrl+c / ctrl+v) and "primary" (the mouse
// selection, pasted with the middle button).
const (
	SelClipboard = "clipboard"
	SelPrimary   = "primary"
)

// maxClipboard bounds what Tofu puts on the clipboard: larger texts would need the INCR
// protocol, which Tofu does not speak.
const maxClipboard = 200 << 10

// clipboard is what Tofu owns and the conversion it waits for.
type clipboard struct {
	mu    sync.Mutex
	owned map[xproto.Atom]string // selection → text Tofu serves
	lost  map[xproto.Atom]chan struct{}
	// reading is held by the one conversion in flight; notes receives its answer.
	reading sync.Mutex
	notes   chan xproto.SelectionNotifyEvent
	gone    chan struct{}
	once    sync.Once
}

func (c *clipboard) init() {
	c.owned = map[xproto.Atom]string{}
	c.lost = map[xproto.Atom]chan struct{}{}
	c.notes = make(chan xproto.SelectionNotifyEvent, 1)
	c.gone = make(chan struct{})
}

func (c *clipboard) notify(e xproto.SelectionNotifyEvent) {
	select {
	case c.notes <- e:
	default: // nobody waits (a late answer to a read that gave up)
	}
}

func (c *clipboard) cleared(e xproto.SelectionClearEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.owned, e.Selection)
	if ch := c.lost[e.Selection]; ch != nil {
		close(ch)
		delete(c.lost, e.Selection)
	}
}

func (c *clipboard) closed() { c.once.Do(func() { close(c.gone) }) }

func (d *Desktop) selection(name string) (xproto.Atom, error) {
	switch strings.ToLower(name) {
	case "", SelClipboard:
		return d.atom("CLIPBOARD")
	case SelPrimary:
		return xproto.AtomPrimary, nil
	}
	return 0, fmt.Errorf("unknown selection %q (clipboard or primary)", name)
}

// WriteClipboard puts text on a selection ("clipboard" or "primary"). Tofu serves it to other
// apps until another app takes the selection or this connection closes; the returned channel
// is closed when another app takes it.
func (d *Desktop) WriteClipboard(sel, text string) (<-chan struct{}, error) {
	if len(text) > maxClipboard {
		return nil, fmt.Errorf("the text is %d bytes; Tofu puts at most %d bytes on the clipboard", len(text), maxClipboard)
	}
	if !utf8.ValidString(text) {
		return nil, errors.New("the text is not valid UTF-8")
	}
	a, err := d.selection(sel)
	if err != nil {
		return nil, err
	}
	lost := make(chan struct{})
	d.clip.mu.Lock()
	if old := d.clip.lost[a]; old != nil {
		close(old)
	}
	d.clip.owned[a], d.clip.lost[a] = text, lost
	d.clip.mu.Unlock()
	if err := xproto.SetSelectionOwnerChecked(d.conn, d.own, a, xproto.TimeCurrentTime).Check(); err != nil {
		return nil, fmt.Errorf("take the %s selection: %w", sel, err)
	}
	r, err := xproto.GetSelectionOwner(d.conn, a).Reply()
	if err != nil || r.Owner != d.own {
		return nil, fmt.Errorf("another client kept the %s selection", sel)
	}
	return lost, nil
}

// ReadClipboard returns the text on a selection ("clipboard" or "primary"), asking its owner
// to convert it to UTF-8 (or Latin-1 text when the owner offers only that).
func (d *Desktop) ReadClipboard(ctx context.Context, sel string) (string, error) {
	a, err := d.selection(sel)
	if err != nil {
		return "", err
	}
	d.clip.mu.Lock()
	text, mine := d.clip.owned[a]
	d.clip.mu.Unlock()
	if mine {
		return text, nil
	}
	owner, err := xproto.GetSelectionOwner(d.conn, a).Reply()
	if err != nil {
		return "", fmt.Errorf("read the %s owner: %w", sel, err)
	}
	if owner.Owner == 0 {
		return "", nil // nothing was copied
	}
	d.clip.reading.Lock()
	defer d.clip.reading.Unlock()
	for _, target := range []string{"UTF8_STRING", "STRING"} {
		text, ok, err := d.convertSelection(ctx, a, target)
		if err != nil || ok {
			return text, err
		}
	}
	return "", fmt.Errorf("the app owning the %s selection offers no text", sel)
}

// convertSelection asks the owner of sel for target and reads the answer; ok is false when
// the owner refuses that target.
func (d *Desktop) convertSelection(ctx context.Context, sel xproto.Atom, target string) (text string, ok bool, err error) {
	t, err := d.atom(target)
	if err != nil {
		return "", false, err
	}
	prop, err := d.atom("TOFU_SELECTION")
	if err != nil {
		return "", false, err
	}
	// Drop an answer a read that gave up left behind.
	select {
	case <-d.clip.notes:
	default:
	}
	xproto.ConvertSelection(d.conn, d.own, sel, t, prop, xproto.TimeCurrentTime)
	var note xproto.SelectionNotifyEvent
	select {
	case note = <-d.clip.notes:
	case <-ctx.Done():
		return "", false, fmt.Errorf("the app owning the clipboard did not answer: %w", ctx.Err())
	case <-d.clip.gone:
		return "", false, errors.New("the X connection closed")
	}
	if note.Property == 0 {
		return "", false, nil
	}
	r, err := xproto.GetProperty(d.conn, true, d.own, prop, xproto.GetPropertyTypeAny, 0, maxClipboard*4).Reply()
	if err != nil {
		return "", false, fmt.Errorf("read the converted selection: %w", err)
	}
	if incr, _ := d.atom("INCR"); r.Type == incr {
		return "", false, errors.New("the clipboard holds a large text sent in pieces (INCR), which Tofu does not read")
	}
	if target == "STRING" {
		return latin1(r.Value), true, nil
	}
	return string(r.Value), true, nil
}

func latin1(b []byte) string {
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return string(rs)
}

// serveSelection answers another app's request for a selection Tofu owns.
func (d *Desktop) serveSelection(e xproto.SelectionRequestEvent) {
	d.clip.mu.Lock()
	text, mine := d.clip.owned[e.Selection]
	d.clip.mu.Unlock()
	prop := e.Property
	if prop == 0 {
		prop = e.Target // obsolete clients name no property
	}
	utf8Atom, _ := d.atom("UTF8_STRING")
	targets, _ := d.atom("TARGETS")
	textAtom, _ := d.atom("TEXT")
	switch {
	case !mine:
		prop = 0
	case e.Target == targets:
		list := []xproto.Atom{targets, utf8Atom, xproto.AtomString, textAtom}
		buf := make([]byte, 4*len(list))
		for i, a := range list {
			buf[4*i], buf[4*i+1], buf[4*i+2], buf[4*i+3] = byte(a), byte(a>>8), byte(a>>16), byte(a>>24)
		}
		xproto.ChangeProperty(d.conn, xproto.PropModeReplace, e.Requestor, prop, xproto.AtomAtom, 32, uint32(len(list)), buf)
	case e.Target == utf8Atom || e.Target == textAtom:
		xproto.ChangeProperty(d.conn, xproto.PropModeReplace, e.Requestor, prop, utf8Atom, 8, uint32(len(text)), []byte(text))
	case e.Target == xproto.AtomString:
		b := toLatin1(text)
		xproto.ChangeProperty(d.conn, xproto.PropModeReplace, e.Requestor, prop, xproto.AtomString, 8, uint32(len(b)), b)
	default:
		prop = 0
	}
	ev := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection, Target: e.Target, Property: prop}
	xproto.SendEvent(d.conn, false, e.Requestor, 0, string(ev.Bytes()))
}

func toLatin1(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			r = '?'
		}
		out = append(out, byte(r))
	}
	return out
}
