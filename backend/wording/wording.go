// Package wording writes counts the way Tofu's messages say them: "1 edit", "3 edits",
// "42,550 tokens".
package wording

import "strconv"

// Plural renders a count with its noun: "1 page", "2 pages"; many overrides the plural form
// ("2 matches" needs it).
func Plural(n int, word string, many ...string) string {
	if n == 1 {
		return "1 " + word
	}
	if len(many) > 0 {
		return strconv.Itoa(n) + " " + many[0]
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// Thousands writes n with comma separators: 42550 → "42,550".
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
