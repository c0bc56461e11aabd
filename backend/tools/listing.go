package tools

import "strings"

// Listing is the answer of a tool that lists what it found: an entry a line, or none (what the
// model reads instead) when nothing was found.
func Listing[T any](found []T, none string, entry func(T) string) Result {
	if len(found) == 0 {
		return Result{Text: none}
	}
	lines := make([]string, len(found))
	for i, f := range found {
		lines[i] = entry(f)
	}
	return Result{Text: strings.TrimSpace(strings.Join(lines, "\n"))}
}
