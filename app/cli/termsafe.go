package cli

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text that Tofu prints on a terminal comes from models, commands and files, and a terminal
// acts on some of its characters: ESC starts sequences that move the cursor, recolour or
// retitle; \r and backspace overwrite what was printed; bidi overrides reorder what is shown.
// Any of them could make an approval line show a command other than the one asked about.

// termLine makes s safe to print as one field of a line: s itself when every character is
// plainly visible (letters, marks, digits, punctuation, symbols, spaces), otherwise s as a
// quoted Go string with every other character escaped, so what is shown spells s exactly
// (a newline in a command is shown as \n, never as a second line).
func termLine(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsGraphic(r) {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

// termText makes streamed text (a model's reply) safe to print while keeping its layout:
// newlines and tabs pass; other C0 and C1 controls, DEL, bidi controls and invalid UTF-8
// become visible escapes (\x1b, \r, \u202e).
func termText(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeInText(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafeInText(r) {
			return true
		}
	}
	return false
}

// unsafeInText reports whether r acts on a terminal or reorders text: C0 but \n and \t,
// DEL, C1, and the bidi embedding, override, isolate and mark characters.
func unsafeInText(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e || r == 0x200f || r == 0x061c:
		return true
	}
	return false
}

// escapeRune spells r the way a Go string literal would (\r, \x1b, \u202e).
func escapeRune(r rune) string {
	q := strconv.QuoteRuneToASCII(r)
	return q[1 : len(q)-1]
}

// runeCarry holds back the end of a streamed chunk that cuts a UTF-8 character in two, so
// the character is judged whole with the next chunk instead of escaped as two bad bytes.
type runeCarry struct{ pending string }

// next returns the printable part of chunk (with what was held back before it).
func (c *runeCarry) next(chunk string) string {
	s := c.pending + chunk
	c.pending = ""
	// A cut character is at most the last 3 bytes: a start byte and too few continuations.
	for k := 1; k <= 3 && k <= len(s); k++ {
		b := s[len(s)-k]
		if b < 0x80 {
			break // ASCII: nothing is cut
		}
		if utf8.RuneStart(b) {
			if !utf8.FullRuneInString(s[len(s)-k:]) {
				s, c.pending = s[:len(s)-k], s[len(s)-k:]
			}
			break
		}
	}
	return termText(s)
}

// flush returns whatever is still held back, escaped (the stream ended mid-character).
func (c *runeCarry) flush() string {
	s := c.pending
	c.pending = ""
	return termText(s)
}
