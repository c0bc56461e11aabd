//go:build unix

package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"github.com/tofu-research/tofu/backend/llm/ollama/realollama"
)

// The local eval against the tests' real `ollama serve` (make test-ollama sets TOFU_OLLAMA_BIN):
// three mini-swe-agent sessions cut to a few calls. What it checks is what the figures rest
// on, not the figures: every step's evaluated tokens were found in the server's log and are
// at most its prompt; the naive resend, which only appends, is served from the cache beyond its
// first request; the local policy makes no move over so few calls, so it is served like the
// naive resend; the JSON has the keys docs/PERFORMANCE.md reads.
func TestLocalAgainstTheRealServer(t *testing.T) {
	bin := realollama.Binary(t)
	trajs, _, err := LoadTrajectories(trajDir(t) + "/mini-swe-agent")
	if err != nil {
		t.Fatal(err)
	}
	steps := 2
	if s := os.Getenv("TOFU_EVAL_LOCAL_STEPS"); s != "" {
		json.Unmarshal([]byte(s), &steps)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var progress bytes.Buffer
	rep, err := RunLocal(ctx, trajs, LocalOptions{Bin: bin, Steps: steps, Sessions: 3, SummaryEvery: 1, Progress: io.MultiWriter(&progress, os.Stderr)})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", text.String())
	for _, run := range rep.Runs {
		for _, s := range run.Steps {
			if s.Evaluated < 1 || s.Evaluated > s.Prompt || s.Prompt <= 0 || s.TTFTMS <= 0 {
				t.Errorf("%s/%s %s step %d: %+v", run.Mode, run.Policy, s.Session, s.Step, s)
			}
		}
	}
	single := map[string]LocalTotals{}
	for _, run := range rep.Runs {
		if run.Mode == "single" {
			single[run.Policy] = run.Total
		}
	}
	naive := single["naive"]
	if naive.Steps != 3*steps || naive.Evaluated >= naive.Prompt || rep.NaiveCacheShare <= 0 {
		t.Errorf("naive resend: %+v, share %.3f", naive, rep.NaiveCacheShare)
	}
	if l := single["local"]; l.Moves != 0 || l.Prompt != naive.Prompt {
		t.Errorf("local policy over %d calls: %+v, naive %+v", steps, l, naive)
	}
	var out bytes.Buffer
	if err := rep.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(out.Bytes(), &keys); err != nil {
		t.Fatal(err)
	}
	// Each session's totals add up to its run's, so the per-trajectory figures are the run's.
	if len(rep.Sessions) != 3*3 {
		t.Errorf("%d session totals, want 9 (3 policies × 3 sessions)", len(rep.Sessions))
	}
	sum := map[string]int{}
	for _, s := range rep.Sessions {
		sum[s.Policy] += s.Total.Evaluated
	}
	for p, tot := range single {
		if sum[p] != tot.Evaluated {
			t.Errorf("%s: the sessions evaluated %d, the run %d", p, sum[p], tot.Evaluated)
		}
	}
	if rep.CacheShare3Slot1 < 0 || rep.CacheShare3 < 0 {
		t.Errorf("three sessions: %.3f with a slot each, %.3f on one slot", rep.CacheShare3, rep.CacheShare3Slot1)
	}
	for _, k := range []string{"steps", "prompt_tokens", "evaluated_tokens", "cache_share", "cache_share_3", "cache_share_3_one_slot", "naive_cache_share", "sessions"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("the JSON has no %q", k)
		}
	}
}
