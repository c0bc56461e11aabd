package cli

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestBranchesEndToEnd drives edit, regenerate and the < > of versions in headless Chromium
// against `tofu serve` and a scripted model that numbers its replies
// (frontend/e2e/branches.e2e.mjs; its screenshot, build/test-shots/branches.png, shows < 2/3 >).
func TestBranchesEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel())
	var n atomic.Int32
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		return scripted.Reply{Text: fmt.Sprintf("Answer %d to: %s", n.Add(1), scripted.LastUser(r))}
	})
	isolate(t, model.URL)
	st, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "branches.e2e.mjs", "branches.png")
	stop()

	// The log kept every version: three user messages' worth of replies, nothing overwritten.
	list, _ := st.Sessions()
	if len(list) != 1 {
		t.Fatalf("%d conversations", len(list))
	}
	evs, _ := st.Events(list[0].ID)
	count := map[store.EventType]int{}
	for _, ev := range evs {
		count[ev.Type]++
	}
	if count[store.EventUser] != 2 || count[store.EventAssistant] != 4 || count[store.EventBranch] != 3 || count[store.EventBranchSwitch] != 3 {
		t.Fatalf("events by type: %v", count)
	}
	// The last request the model read was the regenerated one: the edited message only.
	chats := model.Chats()
	last := chats[len(chats)-1].Request
	for _, m := range last.Messages {
		if m.Role == llm.RoleUser && m.Content != "tell me about bananas" {
			t.Fatalf("the last request carried %q", m.Content)
		}
	}
}
