package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/store"
)

// tofu sessions show prints the active branch with its forks, as text and as JSON.
func TestSessionsShowTheActiveBranch(t *testing.T) {
	info := sessionsData(t, "Fruit", []store.Entry{
		{Type: store.EventUser, Payload: store.UserMessage{Text: "tell me about apples"}},         // 1
		{Type: store.EventAssistant, Payload: store.AssistantMessage{Text: "APPLE-REPLY"}},        // 2
		{Type: store.EventBranch, Payload: store.Branch{From: 0, Reason: store.BranchEdit}},       // 3
		{Type: store.EventUser, Payload: store.UserMessage{Text: "tell me about bananas"}},        // 4
		{Type: store.EventAssistant, Payload: store.AssistantMessage{Text: "BANANA-REPLY"}},       // 5
		{Type: store.EventBranch, Payload: store.Branch{From: 4, Reason: store.BranchRegenerate}}, // 6
		{Type: store.EventAssistant, Payload: store.AssistantMessage{Text: "BANANA-AGAIN"}},       // 7
	}...)
	run := func(args ...string) string {
		t.Helper()
		return execute(t, newSessionsCmd(), append([]string{"show"}, args...)...)
	}
	out := run(info.ID)
	for _, want := range []string{"#4 user  < 2/2 >  versions start at #1, #3", "bananas", "#7 assistant  < 2/2 >  versions start at #5, #6", "BANANA-AGAIN"} {
		if !strings.Contains(out, want) {
			t.Fatalf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "apples") || strings.Contains(out, "BANANA-REPLY") {
		t.Fatalf("another branch is shown:\n%s", out)
	}
	var res struct {
		Head   uint64        `json:"head"`
		Events []store.Event `json:"events"`
		Forks  []store.Fork  `json:"forks"`
	}
	if err := json.Unmarshal([]byte(run("--json", info.ID)), &res); err != nil {
		t.Fatal(err)
	}
	if res.Head != 7 || len(res.Events) != 4 || len(res.Forks) != 2 || res.Forks[0].Index != 1 {
		t.Fatalf("json: %+v", res)
	}
}
