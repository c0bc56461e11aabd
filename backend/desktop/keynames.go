package desktop

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"
)

// keyNames maps the names a combination may use (case-insensitive) to keysyms. Single
// characters need no entry: "a", "7", "/" and "é" are their own keys.
var keyNames = map[string]xproto.Keysym{
	"ctrl": 0xffe3, "control": 0xffe3, "shift": 0xffe1, "alt": 0xffe9, "meta": 0xffe9,
	"super": 0xffeb, "win": 0xffeb, "cmd": 0xffeb, "altgr": 0xfe03,
	"return": 0xff0d, "enter": 0xff0d, "escape": 0xff1b, "esc": 0xff1b, "tab": 0xff09,
	"backspace": 0xff08, "delete": 0xffff, "del": 0xffff, "insert": 0xff63, "ins": 0xff63,
	"home": 0xff50, "end": 0xff57, "pageup": 0xff55, "page_up": 0xff55, "pgup": 0xff55,
	"pagedown": 0xff56, "page_down": 0xff56, "pgdn": 0xff56,
	"left": 0xff51, "up": 0xff52, "right": 0xff53, "down": 0xff54,
	"space": 0x20, "plus": 0x2b, "minus": 0x2d, "comma": 0x2c, "period": 0x2e,
	"slash": 0x2f, "backslash": 0x5c, "semicolon": 0x3b, "apostrophe": 0x27, "grave": 0x60,
	"bracketleft": 0x5b, "bracketright": 0x5d, "equal": 0x3d,
	"menu": 0xff67, "print": 0xff61, "pause": 0xff13, "capslock": 0xffe5, "numlock": 0xff7f,
	"scrolllock": 0xff14,
}

func init() {
	for i := 1; i <= 24; i++ {
		keyNames[fmt.Sprintf("f%d", i)] = xproto.Keysym(0xffbe + i - 1)
	}
}

// isModifier says whether sym is held rather than tapped in a combination.
func isModifier(sym xproto.Keysym) bool { return sym >= 0xffe1 && sym <= 0xffee || sym == 0xfe03 }

// ParseCombo reads a key combination such as "ctrl+shift+t", "alt+F4", "Return" or "ctrl+é"
// into its keysyms, modifiers first. A "+" key itself is named "plus".
func ParseCombo(combo string) ([]uint32, error) {
	combo = strings.TrimSpace(combo)
	if combo == "" {
		return nil, fmt.Errorf("the key combination is empty; say for example ctrl+s or Return")
	}
	var mods, keys []uint32
	for _, part := range strings.Split(combo, "+") {
		part = strings.TrimSpace(part)
		sym, err := keysymOf(part)
		if err != nil {
			return nil, fmt.Errorf("in %q: %w", combo, err)
		}
		if isModifier(sym) {
			mods = append(mods, uint32(sym))
		} else {
			keys = append(keys, uint32(sym))
		}
	}
	if len(keys) > 1 {
		return nil, fmt.Errorf("%q names %d keys that are not modifiers; press them one combination at a time", combo, len(keys))
	}
	return append(mods, keys...), nil
}

func keysymOf(name string) (xproto.Keysym, error) {
	if name == "" {
		return 0, fmt.Errorf("an empty key name (write plus for the + key)")
	}
	if sym, ok := keyNames[strings.ToLower(name)]; ok {
		return sym, nil
	}
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		return runeKeysym(r), nil
	}
	return 0, fmt.Errorf("unknown key %q (use names like ctrl, shift, alt, super, Return, Escape, Tab, F5, Left, PageDown, space, or one character)", name)
}
