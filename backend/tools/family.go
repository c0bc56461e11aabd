package tools

import "strings"

// family is tools deferred together (Registry.DeferFamily) and named as one entry in
// tool_search's description.
type family struct {
	label   string // "browser_*", or the names joined by "/" when they share no prefix
	purpose string
}

// familyLabel names tools by their shared prefix up to an underscore ("browser_*"), or
// lists them ("a/b") when they share none.
func familyLabel(names []string) string {
	if len(names) == 0 {
		return ""
	}
	if len(names) == 1 {
		return names[0]
	}
	prefix := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if i := strings.LastIndexByte(prefix, '_'); i > 0 {
		return prefix[:i+1] + "*"
	}
	return strings.Join(names, "/")
}
