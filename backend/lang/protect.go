package lang

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Span is a piece of a text that must survive translation byte-exact.
type Span struct {
	Kind string // code, math, url, path, identifier, number, marked, lookalike
	// Text is what goes back in place of the placeholder. For a span the user marked with
	// <nt>…</nt> it is the inside: the tags are instructions to the translator, not text.
	Text string
}

// Masked is a text whose protected spans are replaced by placeholders [[T1]], [[T2]]…
type Masked struct {
	Text  string
	Spans []Span // Spans[i] is placeholder i+1
}

// placeholder is the canonical form written into a masked text.
func placeholder(id int) string { return fmt.Sprintf("[[T%d]]", id) }

// canonical matches placeholders exactly as placeholder writes them.
var canonical = regexp.MustCompile(`\[\[T([0-9]+)\]\]`)

// rule finds one kind of span. Rules run in order over what earlier rules left unprotected,
// so an inline code span inside a fence is protected once, as part of the fence.
type rule struct {
	kind string
	re   *regexp.Regexp
	// inner, when set, is the submatch kept as the span's text (the rest of the match is dropped).
	inner int
	// group, when set, is the submatch that is the span (the rest of the match is context).
	group int
}

// anyFence pairs fences wherever they stand: a fence a model moved into the middle of a line
// is no Markdown fence any more, but is still code.
var anyFence = regexp.MustCompile("(?s)```.*?```|~~~.*?~~~")

// rules are compiled on first use, not at package init (which every start of the program pays for).
var rules = sync.OnceValue(func() []rule {
	return []rule{
		// Text that already looks like a placeholder: protected so that restoring cannot mistake it.
		{kind: "lookalike", re: loose},
		{kind: "marked", re: regexp.MustCompile(`(?s)<nt>(.*?)</nt>`), inner: 1},
		{kind: "math", re: regexp.MustCompile(`(?s)\$\$.+?\$\$|\\\[.+?\\\]|\\begin\{[a-zA-Z*]+\}.*?\\end\{[a-zA-Z*]+\}`)},
		{kind: "code", re: regexp.MustCompile("``[^`\n]+``|`[^`\n]+`")},
		{kind: "math", re: regexp.MustCompile(`\$[^$\n]+?\$|\\\(.+?\\\)`)},
		{kind: "url", re: regexp.MustCompile(`(?i)\b(?:https?|ftp|file)://[^\s<>"'` + "`" + `]+[^\s<>"'.,;:!?)\]}。，；：！？）` + "`" + `]|\bwww\.[a-z0-9-]+\.[^\s<>"'` + "`" + `]*[^\s<>"'.,;:!?)\]}。，；：！？）` + "`" + `]`)},
		{kind: "url", re: regexp.MustCompile(`\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b`)},
		{kind: "path", re: regexp.MustCompile(`(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?|(?:~|\.{1,2})/[\w.@+-]+|\b[A-Za-z]:\\[\w.\\-]*[\w]|\b[\w.-]+(?:/[\w.-]+)+\.[A-Za-z0-9]{1,5}\b|\b[\w-]+(?:/[\w.-]+){2,}`)},
		{kind: "path", re: regexp.MustCompile(`\b[\w-]+\.(?:py|go|js|ts|tsx|jsx|json|md|txt|c|h|cc|cpp|hpp|rs|java|kt|rb|php|yaml|yml|toml|sh|html|css|pdf|csv|ipynb|rst|cfg|ini|xml|sql|lock|mod|sum)\b`)},
		{kind: "number", re: regexp.MustCompile(`\bv?\d+(?:\.\d+){2,3}\b|\b\d+(?:[.,]\d+)?\s?(?:%|°[CF]|(?:[kKMGTP]i?)?B(?:/s)?|[kMG]?Hz|ms|µs|us|ns|min|kg|mg|mm|cm|km|nm|px|pt|rem|em|dpi|mAh|[smhgKVWA])(?:\b|$)|\b\d+(?:[.,]\d+)?%`)},
		{kind: "identifier", re: regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?|\b[A-Za-z0-9]*[a-z0-9]_[A-Za-z0-9_]+\b|\b_[A-Za-z0-9_]+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[A-Za-z_]\w*\(\)`)},
		{kind: "identifier", re: regexp.MustCompile(`(?:^|[^\w-])(--?[a-zA-Z][\w-]*)`), group: 1},
	}
})

// notIdentifier lists dotted abbreviations of prose that the identifier rule would take.
var notIdentifier = map[string]bool{"e.g": true, "i.e": true, "E.g": true, "I.e": true, "a.m": true, "p.m": true, "vs.": true, "etc.": true}

// Protect replaces the spans of text that must not be translated by placeholders.
func Protect(text string) Masked {
	type found struct {
		start, end int
		span       Span
	}
	var spans []found
	taken := make([]bool, len(text)+1)
	free := func(a, b int) bool {
		for i := a; i < b; i++ {
			if taken[i] {
				return false
			}
		}
		return true
	}
	take := func(a, b int, s Span) {
		for i := a; i < b; i++ {
			taken[i] = true
		}
		spans = append(spans, found{a, b, s})
	}
	for _, r := range rules()[:2] { // lookalikes and marked spans first: they may hold anything
		protectRule(text, r, taken, take)
	}
	for _, f := range anyFence.FindAllStringIndex(text, -1) {
		if free(f[0], f[1]) {
			take(f[0], f[1], Span{Kind: "code", Text: text[f[0]:f[1]]})
		}
	}
	for _, f := range fences(text) { // an unclosed fence runs to the end
		if free(f[0], f[1]) {
			take(f[0], f[1], Span{Kind: "code", Text: text[f[0]:f[1]]})
		}
	}
	for _, r := range rules()[2:] {
		protectRule(text, r, taken, take)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	out := Masked{}
	at := 0
	for _, f := range spans {
		b.WriteString(text[at:f.start])
		out.Spans = append(out.Spans, f.span)
		b.WriteString(placeholder(len(out.Spans)))
		at = f.end
	}
	b.WriteString(text[at:])
	out.Text = b.String()
	return out
}

// protectRule takes the matches of one rule in the stretches of text no span holds yet. It
// matches each stretch on its own: over the whole text, a match that straddles a span (from
// a fence's last backtick to the next inline code's first) would hide the match after it.
func protectRule(text string, r rule, taken []bool, take func(a, b int, s Span)) {
	var stretches [][2]int
	for i := 0; i < len(text); {
		if taken[i] {
			i++
			continue
		}
		j := i
		for j < len(text) && !taken[j] {
			j++
		}
		stretches = append(stretches, [2]int{i, j})
		i = j
	}
	for _, st := range stretches {
		part := text[st[0]:st[1]]
		for _, m := range r.re.FindAllStringSubmatchIndex(part, -1) {
			a, b := st[0]+m[2*r.group], st[0]+m[2*r.group+1]
			s := Span{Kind: r.kind, Text: text[a:b]}
			if r.inner > 0 {
				s.Text = part[m[2*r.inner]:m[2*r.inner+1]]
			}
			if r.kind == "identifier" && (notIdentifier[s.Text] || len(s.Text) < 3) {
				continue
			}
			take(a, b, s)
		}
	}
}

// fences finds fenced code blocks (``` or ~~~, up to three spaces of indentation) as byte
// ranges from the opening fence to the end of the closing one; an unclosed fence runs to the
// end of the text, as Markdown renders it.
func fences(text string) [][2]int {
	var out [][2]int
	open, openAt, fence := false, 0, ""
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		next := len(text)
		if end >= 0 {
			next = at + end + 1
		}
		line := strings.TrimRight(text[at:next], "\r\n")
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		mark := fenceMark(trimmed)
		switch {
		case !open && indent <= 3 && mark != "":
			open, openAt, fence = true, at, mark
		case open && indent <= 3 && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "":
			out = append(out, [2]int{openAt, at + len(line)})
			open = false
		}
		at = next
	}
	if open {
		out = append(out, [2]int{openAt, len(strings.TrimRight(text, "\n"))})
	}
	return out
}

// fenceMark returns the run of backticks or tildes opening a fence, or "".
func fenceMark(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			if c == "`" && strings.Contains(line[n:], "`") {
				return "" // ```inline``` on one line is code of a line, not a fence
			}
			return strings.Repeat(c, n)
		}
	}
	return ""
}
