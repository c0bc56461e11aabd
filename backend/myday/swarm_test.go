package myday

import (
	"testing"

	"github.com/tofu-research/tofu/backend/store"
)

// A swarm's sub-agents and master rounds are sessions of their parent's work, not
// conversations of the day: their calls count, they are not listed (they were).
func TestSwarmSessionsAreNotConversations(t *testing.T) {
	t.Parallel()
	st, d := fixture(t)
	parent := session(t, st, "Survey", nil, user("Survey the papers"), reply("Done.", 1), usage("qwen3:8b", 100, 10, 0), end(store.EndDone))
	d.today[parent] = true
	for _, title := range []string{"agent 1: reader", "master, round 1"} {
		d.today[session(t, st, title, func(i *store.SessionInfo) { i.Purpose, i.Parent = store.PurposeSwarmAgent, parent },
			user("brief"), reply("result", 0), usage("qwen3:8b", 100, 10, 0), end(store.EndDone))] = true
	}
	r, err := Figures(d, DayOf(noon, noon.Location()), paperTitle)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range r.Sessions {
		titles = append(titles, s.Title)
	}
	if len(r.Sessions) != 5 || r.Total.Calls != 8 {
		t.Fatalf("conversations %q, %d calls", titles, r.Total.Calls)
	}
	for _, title := range titles {
		if title == "agent 1: reader" || title == "master, round 1" {
			t.Fatalf("conversations %q", titles)
		}
	}
}
