package serve

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/wording"
)

// conversation renders a session's log as text: messages and answers, and with calls the
// tool calls and results.
func conversation(evs []store.Event, calls bool) string {
	var b strings.Builder
	// The active path only: an edited message's or a regenerated reply's abandoned versions
	// are not the conversation (docs/BRANCHES.md).
	for _, ev := range store.TreeOf(evs).Path(evs) {
		switch ev.Type {
		case store.EventUser:
			var u store.UserMessage
			if ev.Decode(&u) == nil {
				fmt.Fprintf(&b, "user: %s\n\n", u.Text)
			}
		case store.EventAssistant:
			var a store.AssistantMessage
			if ev.Decode(&a) != nil {
				continue
			}
			if a.Text != "" {
				fmt.Fprintf(&b, "assistant: %s\n\n", a.Text)
			}
			if calls {
				for _, c := range a.ToolCalls {
					fmt.Fprintf(&b, "call %s %s\n", c.Name, wording.Clip(string(c.Arguments), 400))
				}
			}
		case store.EventToolResult:
			if !calls {
				continue
			}
			var r store.ToolResult
			if ev.Decode(&r) == nil {
				fmt.Fprintf(&b, "result %s: %s\n\n", r.Name, wording.Clip(r.Text, 800))
			}
		}
	}
	return b.String()
}

// describe is the progress message of a turn's event ("" for the ones not worth one).
func describe(ev store.Event) string {
	switch ev.Type {
	case store.EventAssistant:
		var a store.AssistantMessage
		if ev.Decode(&a) != nil {
			return ""
		}
		var names []string
		for _, c := range a.ToolCalls {
			names = append(names, c.Name)
		}
		if len(names) > 0 {
			return "calling " + strings.Join(names, ", ")
		}
		return "answered"
	case store.EventToolResult:
		var r store.ToolResult
		if ev.Decode(&r) != nil {
			return ""
		}
		if r.IsError {
			return r.Name + " failed: " + wording.Clip(r.Text, 120)
		}
		return r.Name + " done"
	}
	return ""
}

// snippet is the part of text around the first word of query found in it.
func snippet(text, query string) string {
	low := strings.ToLower(text)
	at := -1
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if i := strings.Index(low, w); i >= 0 {
			at = i
			break
		}
	}
	if at < 0 {
		return wording.ClipLine(text, 200)
	}
	lo, hi := max(at-80, 0), min(at+160, len(text))
	return strings.Join(strings.Fields(text[lo:hi]), " ")
}

func pagesLabel(pages []int) string {
	switch len(pages) {
	case 0:
		return "no page"
	case 1:
		return fmt.Sprintf("p. %d", pages[0])
	}
	return fmt.Sprintf("pp. %d-%d", pages[0], pages[len(pages)-1])
}
