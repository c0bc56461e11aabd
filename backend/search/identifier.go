package search

import (
	"unicode"
	"unicode/utf8"
)

// splitIdentifier cuts a word at '_', '.', '-' and case changes: parse_config → parse, config;
// parseConfig → parse, Config; HTTPServer → HTTP, Server; os.path → os, path. A plain word is
// returned alone. Digits stay with their letters (sha256, utf8).
func splitIdentifier(w string) []string {
	if !hasLetter(w) {
		return []string{w} // 3.14, 2024-05-01
	}
	var parts []string
	start := -1
	var prev rune
	cut := func(end int) {
		if start >= 0 && end > start {
			parts = append(parts, w[start:end])
		}
		start = -1
	}
	for i, r := range w {
		if r == '_' || r == '.' || r == '-' || r == ':' {
			cut(i)
			prev = r
			continue
		}
		if start < 0 {
			start = i
		} else if unicode.IsUpper(r) && unicode.IsLower(prev) {
			cut(i)
			start = i
		} else if unicode.IsLower(r) && unicode.IsUpper(prev) && i-start > utf8.RuneLen(prev) {
			// HTTPServer: the last capital before a lower-case letter starts the next part.
			j := i - utf8.RuneLen(prev)
			cut(j)
			start = j
		}
		prev = r
	}
	cut(len(w))
	if len(parts) == 0 {
		return []string{w}
	}
	return parts
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}
