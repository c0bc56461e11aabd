package compact

import (
	"reflect"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/testtools"
)

// kvEdits replays conv step by step under cfg and calls edit for every request that changes a
// message the previous request sent (the server has it cached: everything after it is
// prefilled again), with the quantities the cost rule reads, taken from the requests
// themselves: saved (what the edit removes), old (the previous request from the first edited
// message to its end), calls (assistant messages so far) and size (the request without the
// edit, built from the same state with moves held back).
func kvEdits(t *testing.T, conv []llm.Message, cfg Config, edit func(step, saved, old, calls, size int)) {
	t.Helper()
	held := cfg
	held.L1.EpochTokens = 1 << 40
	var st State
	var prev []llm.Message
	for n := 4; n <= len(conv); n += 2 {
		before := st
		still, _ := Build(conv[:n], &before, held)
		msgs, rep := Build(conv[:n], &st, cfg)
		first := -1
		for i := range prev {
			if !reflect.DeepEqual(prev[i], msgs[i]) {
				first = i
				break
			}
		}
		if first >= 0 && !rep.Moved {
			t.Fatalf("request %d edits message %d of the previous request without a move", n, first)
		}
		if first >= 0 {
			old, calls := 0, 0
			for _, m := range prev[first:] {
				old += MessageTokens(m)
			}
			for _, m := range conv[:n] {
				if m.Role == llm.RoleAssistant {
					calls++
				}
			}
			edit(n, countMessages(still)-countMessages(msgs), old, calls, countMessages(still))
		}
		prev = msgs
	}
}

// On a local server (Ollama) an edit before the end of the previous request re-prefills
// everything after it. Every such edit must pass the cost rule: carrying what it removes through
// as many calls again as so far costs more than the prefill (at the carry price), or the request
// has reached the window plan's pressure line. The rule is written out here from the requests,
// so a change that edits the cached prefix for any other reason (the hosted price, a move on
// every saving) fails.
func TestLocalEditsOnlyWhenTheCostRuleAllows(t *testing.T) {
	testtools.CPUBound(t)
	conv := growing(120)
	local := Local(Defaults(), 32768)
	k := local.L1.KV
	if !k.Enabled || k.Room != Threshold(32768, local.L2) || k.CarryPrice != DefaultCarryPrice {
		t.Fatalf("Local: %+v", k)
	}
	allowed := func(saved, old, calls, size int) (gain, pressure bool) {
		rewrite := float64(old - saved)
		g := float64(saved)*k.CarryPrice*float64(calls) - (rewrite - k.CarryPrice*float64(old))
		return g > 0, float64(size) >= k.Pressure*float64(k.Room)
	}
	edits, pressured := 0, 0
	kvEdits(t, conv, local, func(n, saved, old, calls, size int) {
		edits++
		gain, pressure := allowed(saved, old, calls, size)
		if saved < local.L1.EpochTokens || !(gain || pressure) {
			t.Errorf("request %d: an edit of the cached prefix saving %d, re-prefilling %d of %d cached tokens after %d calls, at %d of %d tokens of room: the cost rule does not allow it",
				n, saved, old-saved, old, calls, size, k.Room)
		}
		if pressure && !gain {
			pressured++
		}
	})
	// The session does reach the window's pressure line, so the test sees edits happen.
	if edits == 0 || pressured == 0 {
		t.Fatalf("%d edits, %d under pressure over %d messages: the session no longer tests the rule", edits, pressured, len(conv))
	}
	// The hosted policy, on the same session, edits where the local rule refuses: the check
	// above has something to catch.
	refused := 0
	kvEdits(t, conv, Defaults(), func(n, saved, old, calls, size int) {
		if gain, pressure := allowed(saved, old, calls, size); !gain && !pressure {
			refused++
		}
	})
	if refused == 0 {
		t.Fatal("the hosted policy's edits all pass the local rule: the test could not fail")
	}
	t.Logf("local: %d edits (%d under pressure); hosted: %d edits the local rule refuses", edits, pressured, refused)
}
