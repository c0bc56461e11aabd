package bridgetest

import (
	"strings"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/bridge"
)

// WaitConversation waits until the record the bridge keeps of chat (its platform's name keys
// it) satisfies cond, and fails the test if it never does within Patience.
func (f *Tofu) WaitConversation(t *testing.T, platform, chat string, cond func(bridge.Conversation) bool) {
	t.Helper()
	deadline := time.Now().Add(Patience)
	for {
		var c bridge.Conversation
		ok, err := f.Store.GetJSON("bridge/"+platform+"/chat/"+chat, &c)
		if err != nil || !ok {
			t.Fatalf("the record of %s: found %v, %v", chat, ok, err)
		}
		if cond(c) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the record of %s never got there: %+v", chat, c)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Shown says the pending message's answer is in the chat and the bridge recorded which
// message shows it.
func Shown(c bridge.Conversation) bool { return c.Pending != nil && c.Pending.Reply != "" }

// Settled says no message is pending: the last answer is sent and recorded as sent.
func Settled(c bridge.Conversation) bool { return c.Pending == nil }

// Partial reports whether a chat message is an answer still streaming (bridge.Unfinished).
func Partial(text string) bool { return strings.HasSuffix(text, bridge.Unfinished) }
