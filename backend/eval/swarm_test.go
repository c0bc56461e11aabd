package eval

import (
	"context"
	"testing"
	"time"
)

// TestEvalSwarm: the eval runs its 12 agents to the end, calm and under a 429 storm in which
// no agent gives up; injected results stay within their budget. (Times are reported, never
// asserted.)
func TestEvalSwarm(t *testing.T) {
	t.Parallel()
	rep, err := EvalSwarm(context.Background(), SwarmOptions{Delay: 20 * time.Millisecond, Storm: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Agents != 12 || rep.Parallel != 8 || rep.MakespanMS <= 0 || rep.CriticalPathMS <= 0 {
		t.Fatalf("report: %+v", rep)
	}
	if rep.MaxInjectedTokens <= 0 || rep.MaxInjectedTokens > rep.ResultBudget || rep.ResultTokens <= rep.ResultBudget {
		t.Fatalf("injected %d tokens of a %d-token result, budget %d", rep.MaxInjectedTokens, rep.ResultTokens, rep.ResultBudget)
	}
	if rep.Storm.Refused == 0 || rep.Storm.Done != 12 || rep.Storm.Retried != 0 {
		t.Fatalf("storm: %+v", rep.Storm)
	}
	t.Logf("makespan %d ms, critical path %d ms (ratio %.3f); storm: %+v", rep.MakespanMS, rep.CriticalPathMS, rep.Ratio, rep.Storm)
}
