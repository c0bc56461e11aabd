package lang

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// loose matches a placeholder the way models give them back: brackets single or doubled,
// full-width or of another shape, spaces inside, the letter in either case or full width, the
// digits full width.
var loose = regexp.MustCompile(`[\[［【〔⟦〖][\[［【〔⟦〖]?[ \t　]*[TtＴｔ][ \t　_-]*([0-9０-９]+)[ \t　]*[\]］】〕⟧〗][\]］】〕⟧〗]?`)

// LostError says which placeholders a translation dropped.
type LostError struct{ IDs []int }

func (e *LostError) Error() string {
	return fmt.Sprintf("the translation lost placeholders %v", e.IDs)
}

// Restore puts the spans back in place of the placeholders of a translated text, however the
// model mangled them. A placeholder missing from the text is a *LostError (the caller retries
// that chunk); one the model made up is dropped; one the model repeated is restored twice.
func Restore(translated string, spans []Span) (string, error) {
	seen := make([]bool, len(spans))
	out := loose.ReplaceAllStringFunc(translated, func(m string) string {
		id := placeholderID(m)
		if id < 1 || id > len(spans) {
			return ""
		}
		seen[id-1] = true
		return spans[id-1].Text
	})
	var lost []int
	for i, ok := range seen {
		if !ok {
			lost = append(lost, i+1)
		}
	}
	if lost != nil {
		return out, &LostError{IDs: lost}
	}
	return out, nil
}

func placeholderID(m string) int {
	sub := loose.FindStringSubmatch(m)
	if sub == nil {
		return 0
	}
	digits := strings.Map(func(r rune) rune {
		if r >= '０' && r <= '９' {
			return '0' + (r - '０')
		}
		return r
	}, sub[1])
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0
	}
	return n
}
