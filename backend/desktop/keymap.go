package desktop

import (
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// keymap is the server's keyboard mapping: which keycode (and shift level) produces a keysym,
// and which keycodes are free to be mapped to a keysym the keyboard lacks.
type keymap struct {
	min, max xproto.Keycode
	per      int
	syms     []xproto.Keysym // per keysyms for each keycode from min
	// where is the keycode and level (0 plain, 1 shifted) of each keysym the keyboard has.
	where map[xproto.Keysym]keyAt
	// spare keycodes have no keysym at all: typing a character the layout lacks maps one of
	// them to it for the time of the key press.
	spare []xproto.Keycode
	// borrowed spare keycodes, by the keysym they type now, and when each was last used.
	borrowed map[xproto.Keysym]xproto.Keycode
	used     map[xproto.Keycode]uint64
	clock    uint64
}

type keyAt struct {
	code    xproto.Keycode
	shifted bool
}

func loadKeymap(c *xgb.Conn) (*keymap, error) {
	s := xproto.Setup(c)
	k := &keymap{min: s.MinKeycode, max: s.MaxKeycode, borrowed: map[xproto.Keysym]xproto.Keycode{}, used: map[xproto.Keycode]uint64{}}
	n := int(k.max) - int(k.min) + 1
	r, err := xproto.GetKeyboardMapping(c, k.min, byte(n)).Reply()
	if err != nil {
		return nil, fmt.Errorf("read the keyboard mapping: %w", err)
	}
	k.per, k.syms = int(r.KeysymsPerKeycode), r.Keysyms
	k.index()
	return k, nil
}

func (k *keymap) index() {
	k.where = map[xproto.Keysym]keyAt{}
	k.spare = k.spare[:0]
	n := int(k.max) - int(k.min) + 1
	for i := 0; i < n; i++ {
		code := xproto.Keycode(int(k.min) + i)
		row := k.syms[i*k.per : (i+1)*k.per]
		empty := true
		for level, sym := range row {
			if sym == 0 {
				continue
			}
			empty = false
			// Only the first group's two levels are reachable with Shift alone.
			if level < 2 {
				if _, ok := k.where[sym]; !ok {
					k.where[sym] = keyAt{code: code, shifted: level == 1}
				}
			}
		}
		// A single-keysym row (a lowercase letter) also gives the uppercase on the shifted
		// level, as the X protocol's rule for one-keysym keycodes says.
		if row[0] != 0 && (k.per < 2 || row[1] == 0) {
			if up := upperKeysym(row[0]); up != row[0] {
				if _, ok := k.where[up]; !ok {
					k.where[up] = keyAt{code: code, shifted: true}
				}
			}
		}
		switch {
		case empty && code != 8:
			k.spare = append(k.spare, code)
		case borrowedRow(row):
			// Mapped by an earlier Tofu (or xdotool) to type a character: usable as it is, and
			// free to take again.
			k.spare = append(k.spare, code)
			k.borrowed[row[0]] = code
		}
	}
}

// borrowedRow recognises a keycode mapped to type one character the layout lacks: the same
// non-ASCII character on both levels and nothing else (real keys pair a lower and an upper
// case, or have more levels).
func borrowedRow(row []xproto.Keysym) bool {
	if len(row) < 2 || row[0] != row[1] || row[0] < 0xa0 || (row[0] > 0xff && row[0] < 0x01000000) {
		return false
	}
	for _, s := range row[2:] {
		if s != 0 {
			return false
		}
	}
	return true
}

// upperKeysym is the shifted keysym of a Latin-1 letter.
func upperKeysym(s xproto.Keysym) xproto.Keysym {
	switch {
	case s >= 'a' && s <= 'z':
		return s - 32
	case s >= 0xe0 && s <= 0xfe && s != 0xf7:
		return s - 32
	}
	return s
}

// runeKeysym is the keysym that types r: Latin-1 characters are their own keysyms, controls
// have function keysyms, and every other character is 0x01000000 + its code point.
func runeKeysym(r rune) xproto.Keysym {
	switch r {
	case '\n', '\r':
		return 0xff0d // Return
	case '\t':
		return 0xff09 // Tab
	case '\b':
		return 0xff08 // BackSpace
	}
	if (r >= 0x20 && r <= 0x7e) || (r >= 0xa0 && r <= 0xff) {
		return xproto.Keysym(r)
	}
	return xproto.Keysym(0x01000000 + r)
}
