package swarm

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/session"
)

// firstRequestBudget is session.TestFirstRequestBudget's bound: the swarm's tools are deferred
// so that a turn equipped with them stays within it.
const firstRequestBudget = 1500

// TestFirstRequestBudgetWithSwarm: spawn_agents and the artifact tools are not offered until
// found; tool_search names them; the first request stays within the budget.
func TestFirstRequestBudgetWithSwarm(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	gitWorkspace(t, f)
	f.model.Default(llmtest.Reply{Text: "hi"})
	id := f.parent(t, "hello")
	if _, err := f.runner.Run(context.Background(), session.Request{Session: id, Questions: true}); err != nil {
		t.Fatal(err)
	}
	req := *f.model.Chats()[0].Request
	total := tokens.CountRequest(req)
	var search string
	for _, s := range req.Tools {
		for _, d := range Deferred {
			if s.Name == d {
				t.Fatalf("%s is offered in the first request", d)
			}
		}
		if s.Name == "tool_search" {
			search = s.Description
		}
	}
	if !strings.Contains(search, SpawnName) {
		t.Fatalf("tool_search does not name %s: %q", SpawnName, search)
	}
	t.Logf("first request with the swarm's tools deferred: %d o200k tokens", total)
	if total > firstRequestBudget {
		t.Fatalf("the first request costs %d tokens; the budget is %d", total, firstRequestBudget)
	}
}
