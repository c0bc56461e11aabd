package serve

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/store"
)

// A conversation read through MCP is its active path: the user edited the first message, so
// the first version and the reply to it are on an abandoned branch and are not read.
func TestConversationReadsTheActivePath(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, _ := st.CreateSession("edited")
	for _, e := range []store.Entry{
		{Type: store.EventUser, Payload: store.UserMessage{Text: "first version"}},
		{Type: store.EventAssistant, Payload: store.AssistantMessage{Text: "reply to the first version"}},
		{Type: store.EventBranch, Payload: store.Branch{From: 0, Reason: store.BranchEdit}},
		{Type: store.EventUser, Payload: store.UserMessage{Text: "second version"}},
		{Type: store.EventAssistant, Payload: store.AssistantMessage{Text: "reply to the second version"}},
	} {
		if _, err := st.Append(info.ID, e.Type, e.Payload); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := st.Events(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := conversation(evs, true)
	if strings.Contains(got, "first version") || !strings.Contains(got, "user: second version") || !strings.Contains(got, "assistant: reply to the second version") {
		t.Fatalf("conversation read an abandoned branch or lost the active one:\n%s", got)
	}
}
