package wording

import (
	"strings"
	"unicode/utf8"
)

// Clip cuts s to at most n bytes and marks the cut with "…"; it never cuts a character in two
// (a cut mid-character would leave invalid UTF-8 for a model, a terminal or a JSON encoder to
// choke on). s fits: s unchanged.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ClipLine is Clip of s with its runs of white space (new lines included) made one space: a
// command, a title or a reason shown on one line.
func ClipLine(s string, n int) string {
	return Clip(strings.Join(strings.Fields(s), " "), n)
}

// ClipTail keeps the last n bytes of s, whole characters only, with "…" before them.
func ClipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	at := len(s) - max(n, 0)
	for at < len(s) && !utf8.RuneStart(s[at]) {
		at++
	}
	return "…" + s[at:]
}
