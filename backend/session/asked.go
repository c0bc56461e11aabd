package session

import (
	"regexp"
	"sync"

	"github.com/tofu-research/tofu/backend/store"
)

// askedForPage is a user message that plainly wants a web page: an address ("http://…",
// "localhost:8771") or words like "open the page", "in the browser". A task whose first line
// held http://127.0.0.1:8771/ spent one of its five calls on tool_search to get the browser.
var askedForPage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bhttps?://[^\s/$.?#]+\S*` +
		`|\b(?:localhost|127\.0\.0\.1)(?::\d+)\b` +
		`|\b(?:open|visit|browse|load)\s+(?:the|this|that|a|my)?\s*(?:web\s*)?(?:page|site|website|url|link)\b` +
		`|\bin\s+(?:the|a)\s+browser\b`)
})

// askedFamilies are the deferred families a user message of the conversation plainly asks
// for: offered from the turn's first request, as a family the user turned on. Every user
// message counts, not just the newest, so a family once offered stays offered: the tool list
// (part of the cached prefix) changes once, when the message asks.
func askedFamilies(events []store.Event) []store.ToolFamily {
	for _, ev := range events {
		if ev.Type != store.EventUser {
			continue
		}
		var m store.UserMessage
		if ev.Decode(&m) == nil && askedForPage().MatchString(m.Text) {
			return []store.ToolFamily{store.FamilyBrowser}
		}
	}
	return nil
}
