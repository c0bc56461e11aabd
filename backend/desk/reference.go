package desk

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tofu-research/tofu/backend/store"
)

// How much of another conversation a reference carries: the last few user messages and the
// last reply, each cut, so a reference costs a few hundred tokens whatever the source's length.
const (
	refMessages  = 6
	refUserChars = 240
	refReplyChar = 900
)

// Reference is a compact text standing for another conversation, for the user to send as
// context in this one (the sidebar's "Reference in this conversation", the composer's
// @-mention): its title and id, its last user messages and its last reply, cut short, and how
// the agent can read the rest (conversation_read). It is put in the composer, where the user
// sees and can edit exactly what will be sent.
func (s *Desk) Reference(id string) (string, error) {
	info, err := s.store.Session(id)
	if err != nil {
		return "", err
	}
	evs, err := s.store.Events(id)
	if err != nil {
		return "", err
	}
	var users []string
	var reply string
	for _, ev := range store.TreeOf(evs).Path(evs) { // the active path: not an edit's abandoned versions
		switch ev.Type {
		case store.EventUser:
			var u store.UserMessage
			if ev.Decode(&u) == nil && strings.TrimSpace(u.Text) != "" {
				users = append(users, u.Text)
			}
		case store.EventAssistant:
			var a store.AssistantMessage
			if ev.Decode(&a) == nil && strings.TrimSpace(a.Text) != "" {
				reply = a.Text
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<referenced-conversation title=%q session=%q messages=\"%d\">\n", info.Title, info.ID, len(users))
	if skipped := len(users) - refMessages; skipped > 0 {
		fmt.Fprintf(&b, "(%d earlier messages left out)\n", skipped)
		users = users[skipped:]
	}
	for _, u := range users {
		fmt.Fprintf(&b, "User: %s\n", cut(oneLine(u), refUserChars))
	}
	if reply != "" {
		fmt.Fprintf(&b, "Last reply: %s\n", cut(strings.TrimSpace(reply), refReplyChar))
	}
	b.WriteString("</referenced-conversation>")
	return b.String(), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
