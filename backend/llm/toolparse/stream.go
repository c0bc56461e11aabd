package toolparse

import (
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// maxPending bounds the text held back while a call may be in progress: an opening never closed
// is let through as text past this size rather than holding the reply back to its end.
const maxPending = 64 << 10

// Wrap turns the tool calls a model prints as text into EventToolCall events. Text passes
// through at once, except while a possible call is being written (an opening marker, or a reply
// that starts like a JSON object); that text is held until it turns out to be a call or not.
// Calls to tools not offered, and malformed ones, stay text. An EventRetry drops what is held.
// Without tools, s is returned as is.
func Wrap(s llm.Stream, family string, tools []llm.ToolSpec) llm.Stream {
	if len(tools) == 0 {
		return s
	}
	return func(yield func(llm.Event, error) bool) {
		sc := newScanner(family, tools)
		emit := func(evs []llm.Event) bool {
			for _, ev := range evs {
				if !yield(ev, nil) {
					return false
				}
			}
			return true
		}
		for ev, err := range s {
			if err != nil {
				if emit(sc.feed("", true)) {
					yield(llm.Event{}, err)
				}
				return
			}
			switch ev.Kind {
			case llm.EventText:
				if !emit(sc.feed(ev.Text, false)) {
					return
				}
				continue
			case llm.EventRetry:
				sc.reset()
			case llm.EventUsage, llm.EventDone:
				if !emit(sc.feed("", true)) {
					return
				}
			}
			if !yield(ev, nil) {
				return
			}
		}
		emit(sc.feed("", true))
	}
}

// scanner finds printed calls in text that arrives in pieces.
type scanner struct {
	styles []*style // those with markers
	bare   bool     // a whole reply may be a JSON call
	tools  toolset
	buf    string // text not decided yet
	// started is whether the reply has shown non-space text; whole, whether that text may be
	// a bare JSON call and is held to the end.
	started, whole bool
}

func newScanner(family string, tools []llm.ToolSpec) *scanner {
	sc := &scanner{tools: index(tools)}
	for _, st := range stylesFor(family) {
		if st == bare {
			sc.bare = true
		} else {
			sc.styles = append(sc.styles, st)
		}
	}
	return sc
}

func (sc *scanner) reset() { sc.buf, sc.started, sc.whole = "", false, false }

// feed adds text and returns what can be decided now: text and calls, in order. final says no
// more text will come, so nothing is held.
func (sc *scanner) feed(text string, final bool) []llm.Event {
	sc.buf += text
	var out events
	if sc.bare && !sc.started {
		trimmed := strings.TrimLeft(sc.buf, " \t\r\n")
		if trimmed == "" && !final {
			return nil
		}
		sc.started = trimmed != ""
		sc.whole = sc.started && (trimmed[0] == '{' || trimmed[0] == '[')
	}
	if sc.whole {
		trimmed := strings.TrimSpace(sc.buf)
		switch {
		case final:
			sc.whole = false
			if calls, ok := decodeCalls(trimmed, sc.tools); ok {
				sc.buf = ""
				return out.calls(calls)
			}
		case plausibleJSON(trimmed) && len(sc.buf) < maxPending:
			return nil
		default:
			sc.whole = false
		}
	}
	sc.started = sc.started || strings.TrimSpace(sc.buf) != ""

	buf, i := sc.buf, 0
	sc.buf = ""
	for i < len(buf) {
		j, st := sc.nextOpen(buf[i:])
		if st == nil {
			k := len(buf)
			if !final {
				k -= partialMarker(buf[i:], sc.styles)
			}
			out.text(buf[i:k])
			sc.buf = buf[k:]
			break
		}
		j += i
		out.text(buf[i:j])
		body := j + len(st.open)
		c := strings.Index(buf[body:], st.close)
		if c < 0 {
			if !final && len(buf)-j < maxPending {
				sc.buf = buf[j:]
				break
			}
			// The reply ended inside the call: models often stop before the closing tag.
			if calls, ok := st.parse(buf[j:], sc.tools); ok && final {
				out.calls(calls)
				break
			}
			out.text(buf[j:body])
			i = body
			continue
		}
		end := body + c + len(st.close)
		if calls, ok := st.parse(buf[j:end], sc.tools); ok {
			out.calls(calls)
		} else {
			out.text(buf[j:end])
		}
		i = end
	}
	return out
}

// nextOpen finds the first opening marker in s.
func (sc *scanner) nextOpen(s string) (int, *style) {
	best, found := -1, (*style)(nil)
	for _, st := range sc.styles {
		if j := strings.Index(s, st.open); j >= 0 && (best < 0 || j < best) {
			best, found = j, st
		}
	}
	return best, found
}

// partialMarker is the length of the longest end of s that begins an opening marker.
func partialMarker(s string, styles []*style) int {
	longest := 0
	for _, st := range styles {
		for n := min(len(st.open)-1, len(s)); n > longest; n-- {
			if strings.HasSuffix(s, st.open[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}

// plausibleJSON reports whether s, which starts with { or [, may still become one JSON object
// or array of objects with nothing after it. It rejects early what is plainly prose ("[1] see",
// "{{name}}") so such a reply is not held back to its end.
func plausibleJSON(s string) bool {
	if after := strings.TrimLeft(s[1:], " \t\r\n"); after != "" {
		if s[0] == '{' && after[0] != '"' && after[0] != '}' || s[0] == '[' && after[0] != '{' && after[0] != ']' {
			return false
		}
	}
	depth, str := 0, jsonString{}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if str.inside(c) {
			continue
		}
		switch c {
		case '"':
			str.open = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return strings.TrimSpace(s[i+1:]) == ""
			}
		}
	}
	return true
}

// jsonString follows a JSON string byte by byte once its opening quote is seen (open set).
type jsonString struct{ open, escaped bool }

// inside reports whether c belongs to the open string (its closing quote included).
func (j *jsonString) inside(c byte) bool {
	if !j.open {
		return false
	}
	switch {
	case j.escaped:
		j.escaped = false
	case c == '\\':
		j.escaped = true
	case c == '"':
		j.open = false
	}
	return true
}

// events collects a scanner's output, merging adjacent text.
type events []llm.Event

func (e *events) text(s string) {
	if s == "" {
		return
	}
	if n := len(*e); n > 0 && (*e)[n-1].Kind == llm.EventText {
		(*e)[n-1].Text += s
		return
	}
	*e = append(*e, llm.Event{Kind: llm.EventText, Text: s})
}

func (e *events) calls(calls []llm.ToolCall) events {
	for i := range calls {
		*e = append(*e, llm.Event{Kind: llm.EventToolCall, ToolCall: &calls[i]})
	}
	return *e
}
