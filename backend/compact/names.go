package compact

import (
	"fmt"
	"hash/maphash"
	"regexp"
	"strings"
	"sync"
)

// identRE finds identifier-like words, dotted paths included.
var identRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`)
})

// Names returns the distinctive identifiers in text, in order, once each: words of at least 6
// characters that are snake_case, dotted or camelCase (function and file names, settings), so
// ordinary words are not counted. Replay counts a later step naming one of them that only
// compacted content held as a miss.
func Names(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range identRE().FindAllString(text, -1) {
		if !seen[w] && Distinctive(w) {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// Distinctive: at least 6 characters and snake_case, dotted or camelCase.
func Distinctive(w string) bool {
	if len(w) < 6 {
		return false
	}
	if strings.Contains(strings.Trim(w, "_"), "_") || strings.Contains(w, ".") {
		return true
	}
	for i := 1; i < len(w); i++ {
		if w[i-1] >= 'a' && w[i-1] <= 'z' && w[i] >= 'A' && w[i] <= 'Z' {
			return true
		}
	}
	return false
}

// namesLine lists the names the full text holds that the kept text does not, at most limit of
// them: a compacted message still tells the model what it was about, so it reopens the ref
// (read_result with grep) when it needs one of them instead of guessing. Empty when none.
func namesLine(full, kept string, limit int) string {
	if limit <= 0 {
		return ""
	}
	// Memoised: the same cold message is rebuilt on every request of a session.
	key := maphash.String(tokSeed, full) ^ 31*maphash.String(tokSeed, kept) ^ uint64(limit)
	return namesLines.get(key, func() string { return names(full, kept, limit) })
}

var namesLines memo

func names(full, kept string, limit int) string {
	var out []string
	for _, w := range Names(full) {
		if !strings.Contains(kept, w) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return ""
	}
	more := ""
	if len(out) > limit {
		more = fmt.Sprintf(" (+%d more)", len(out)-limit)
		out = out[:limit]
	}
	return "[names: " + strings.Join(out, ", ") + more + "]"
}
