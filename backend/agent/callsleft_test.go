package agent

import (
	"encoding/json"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// The turn's steps left bound L1's payback, unless the requests, growing as they have, would
// reach L2's threshold within them: then a summary would come instead of a declined move.
func TestCallsLeftDroppedNearTheThreshold(t *testing.T) {
	usage := func(in int) store.Event {
		b, _ := json.Marshal(llm.Usage{InputTokens: in})
		return store.Event{Type: store.EventUsage, Data: b}
	}
	turn := &Turn{Context: compact.NewManager(compact.Defaults(), nil, compact.State{}), Window: 32_768}
	th := compact.Threshold(32_768, compact.Defaults().L2)
	// Ten calls grew to th/4: ten more steps at that pace stay under the threshold.
	var evs []store.Event
	for i := 1; i <= 10; i++ {
		evs = append(evs, usage(th/40*i))
	}
	if got := callsLeft(turn, evs, 10); got != 10 {
		t.Fatalf("far from the threshold: %d", got)
	}
	// Forty more steps at that pace would cross it: no bound.
	if got := callsLeft(turn, evs, 40); got != 0 {
		t.Fatalf("a summary would come first: %d", got)
	}
	if got := callsLeft(&Turn{Context: turn.Context}, evs, 40); got != 40 {
		t.Fatalf("no window known: %d", got)
	}
	if got := callsLeft(&Turn{}, evs, 40); got != 0 {
		t.Fatalf("no context manager: %d", got)
	}
}
