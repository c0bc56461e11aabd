package desktop

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"
)

const shiftL xproto.Keysym = 0xffe1

// recycleSettle is how long typing pauses before it remaps half the spare keycodes, once
// every one of them types a character (only text with more distinct characters the layout lacks
// than there are spare keycodes, about 20 on a usual keyboard mapping, needs it).
const recycleSettle = 250 * time.Millisecond

// Type types text into the focused window, character by character. Characters the keyboard
// layout lacks (any Unicode character) are typed by mapping a spare keycode to them (see
// borrow).
func (d *Desktop) Type(ctx context.Context, text string) error {
	d.inputMu.Lock()
	defer d.inputMu.Unlock()
	n := 0
	for _, r := range text {
		if err := ctx.Err(); err != nil {
			return err
		}
		at, err := d.keyFor(runeKeysym(r))
		if err != nil {
			return err
		}
		d.tap(at)
		// A sync now and then keeps the server's queue short, so a Stop takes effect at once.
		if n++; n%32 == 0 {
			if err := d.sync(); err != nil {
				return err
			}
		}
	}
	return d.sync()
}

// keyFor is the key that types sym, borrowing a spare keycode when the layout lacks it.
func (d *Desktop) keyFor(sym xproto.Keysym) (keyAt, error) {
	if at, ok := d.keys.where[sym]; ok {
		return at, nil
	}
	code, err := d.borrow(sym)
	return keyAt{code: code}, err
}

// tap presses and releases one key, with Shift around it when its level needs it.
func (d *Desktop) tap(at keyAt) {
	shift := d.keys.where[shiftL].code
	if at.shifted && shift != 0 {
		d.fake(xproto.KeyPress, byte(shift), 0, 0)
	}
	d.fake(xproto.KeyPress, byte(at.code), 0, 0)
	d.fake(xproto.KeyRelease, byte(at.code), 0, 0)
	if at.shifted && shift != 0 {
		d.fake(xproto.KeyRelease, byte(shift), 0, 0)
	}
}

// borrow maps a spare keycode to sym. The mapping stays until the spare keycodes run out,
// even after Tofu closes: a client reads a key event
// with the keymap it has when it reads the event, so unmapping right after the key press
// (while the event may still be queued in the client) would make it type nothing. The next
// connection recognises such keycodes (borrowedRow) and uses or recycles them.
func (d *Desktop) borrow(sym xproto.Keysym) (xproto.Keycode, error) {
	k := d.keys
	k.clock++
	if code, ok := k.borrowed[sym]; ok {
		k.used[code] = k.clock
		return code, nil
	}
	if len(k.spare) == 0 {
		return 0, fmt.Errorf("the keyboard mapping has no free keycode to type %U", rune(sym&0xffffff))
	}
	taken := map[xproto.Keycode]xproto.Keysym{}
	for s, c := range k.borrowed {
		taken[c] = s
	}
	code := xproto.Keycode(0)
	for _, c := range k.spare {
		if _, ok := taken[c]; !ok {
			code = c
			break
		}
	}
	if code == 0 {
		// Every spare keycode types a character that may still sit unread in the focused
		// app's queue: an X client applies a keymap change when it reads the change, not
		// when it reads the key. Give it time to read, then take back the least recently used
		// half: those were typed at least half the spares ago.
		if err := d.sync(); err != nil {
			return 0, err
		}
		time.Sleep(recycleSettle)
		codes := slices.Clone(k.spare)
		slices.SortFunc(codes, func(a, b xproto.Keycode) int { return cmp.Compare(k.used[a], k.used[b]) })
		for _, c := range codes[:max(1, len(codes)/2)] {
			s := taken[c]
			delete(k.borrowed, s)
			if at, ok := k.where[s]; ok && at.code == c {
				delete(k.where, s)
			}
		}
		code = codes[0]
	}
	if err := d.mapKey(code, sym); err != nil {
		return 0, err
	}
	k.borrowed[sym], k.used[code] = code, k.clock
	return code, nil
}

// mapKey maps code to sym on both levels (0: unmap).
func (d *Desktop) mapKey(code xproto.Keycode, sym xproto.Keysym) error {
	row := make([]xproto.Keysym, d.keys.per)
	row[0] = sym
	if len(row) > 1 {
		row[1] = sym
	}
	err := xproto.ChangeKeyboardMappingChecked(d.conn, 1, code, byte(d.keys.per), row).Check()
	if err != nil {
		return fmt.Errorf("map keycode %d: %w", code, err)
	}
	return nil
}

// Key presses a key combination ("ctrl+s", "alt+F4", "Return"; see ParseCombo) in the
// focused window: modifiers down in order, the key tapped, modifiers up in reverse.
func (d *Desktop) Key(ctx context.Context, combo string) error {
	syms, err := ParseCombo(combo)
	if err != nil {
		return err
	}
	d.inputMu.Lock()
	defer d.inputMu.Unlock()
	var held []xproto.Keycode
	shiftHeld := false
	for _, s := range syms {
		sym := xproto.Keysym(s)
		at, err := d.keyFor(sym)
		if err != nil {
			return err
		}
		if isModifier(sym) {
			shiftHeld = shiftHeld || sym == shiftL || sym == shiftL+1
			d.fake(xproto.KeyPress, byte(at.code), 0, 0)
			held = append(held, at.code)
			continue
		}
		if shiftHeld {
			at.shifted = false
		}
		d.tap(at)
	}
	for i := len(held) - 1; i >= 0; i-- {
		d.fake(xproto.KeyRelease, byte(held[i]), 0, 0)
	}
	if err := d.sync(); err != nil {
		return err
	}
	return ctx.Err()
}
