package eval

import (
	"testing"
)

// Whole sessions without a server (offlineCache, the prediction the real server matched step
// for step): under the naive resend, which only appends, every step evaluates exactly what it
// added (share = limit); the local policy serves at least 90% of the three sessions' prompt
// tokens from the cache over whole sessions (issue 35's goal), each session's share is at most
// its limit, and the per-session totals add up to the run's.
func TestLocalOfflineWholeSessions(t *testing.T) {
	trajs, _, err := LoadTrajectories(trajDir(t) + "/mini-swe-agent")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunLocal(t.Context(), trajs, LocalOptions{Offline: true, Sessions: 3})
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]LocalTotals{}
	for _, r := range rep.Runs {
		runs[r.Policy] = r.Total
	}
	if n := runs["naive"]; n.Evaluated != n.Growth || n.Steps < 3*20 {
		t.Errorf("naive resend: evaluated %d, grew by %d, over %d steps", n.Evaluated, n.Growth, n.Steps)
	}
	if rep.CacheShare < 0.90 || runs["local"].Moves == 0 {
		t.Errorf("local policy: %.1f%% from cache over %d steps, %d moves", 100*rep.CacheShare, rep.StepsN, runs["local"].Moves)
	}
	sum := map[string]int{}
	for _, s := range rep.Sessions {
		sum[s.Policy] += s.Total.Evaluated
		if s.Share > s.Limit+1e-9 {
			t.Errorf("%s %s: share %.3f above its limit %.3f", s.Policy, s.Session, s.Share, s.Limit)
		}
	}
	for p, tot := range runs {
		if sum[p] != tot.Evaluated {
			t.Errorf("%s: sessions evaluated %d, the run %d", p, sum[p], tot.Evaluated)
		}
	}
	if _, err := RunLocal(t.Context(), trajs, LocalOptions{Offline: true, Modes: []string{"swarm"}}); err == nil {
		t.Error("--offline accepted the swarm mode")
	}
	if _, err := RunLocal(t.Context(), trajs, LocalOptions{Offline: true, Modes: []string{"fast"}}); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
