package permission

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape shows the control and invisible formatting characters of s as escapes (\n, \r,
// \t, \x1b, \u202e…) and invalid UTF-8 bytes as \xNN, so that an approval line shows exactly
// what will run: a carriage return, a terminal escape or a bidi override in a command cannot
// make it read as another command.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if hidden(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case hidden(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hidden reports whether r would not show as itself on a terminal or in a card.
func hidden(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)
}
