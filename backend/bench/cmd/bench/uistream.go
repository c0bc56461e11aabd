package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tofu-research/tofu/backend/bench"
)

// uiStream is what frontend/bench/stream.measure.ts writes: the transcript's streaming
// pipeline (IncrementalMarkdown with the app's sanitizing renderers) over one reply.
type uiStream struct {
	Deltas           int     `json:"deltas"`
	ApproxTokens     int     `json:"approxTokens"`
	TotalCPUMs       float64 `json:"totalCpuMs"`
	TotalWallMs      float64 `json:"totalWallMs"`
	WorstDeltaCPUMs  float64 `json:"worstDeltaCpuMs"`
	WorstDeltaWallMs float64 `json:"worstDeltaWallMs"`
	FinalUpdateMs    float64 `json:"finalUpdateMs"`
	Environment      string  `json:"environment"`
}

// uiStreamingRow runs the front end's streaming benchmark with the front end's own vitest
// (node and frontend/node_modules must be there: `make setup`), and reads its JSON.
func uiStreamingRow(ctx context.Context, frontend string) bench.Row {
	const measure, anchor, goal = "UI streaming: 1,000 deltas of a 4k-token reply", "16 ms frame", "worst ≤ 16 ms"
	fail := func(err error) bench.Row { return bench.NotMeasured(measure, anchor, goal, err) }
	node, err := exec.LookPath("node")
	if err != nil {
		return fail(errors.New("node is not installed"))
	}
	vitest := filepath.Join(frontend, "node_modules", "vitest", "vitest.mjs")
	if _, err := os.Stat(vitest); err != nil {
		return fail(fmt.Errorf("no %s (run `make setup` or npm install in %s)", vitest, frontend))
	}
	out, err := os.CreateTemp("", "tofu-uibench-*.json")
	if err != nil {
		return fail(err)
	}
	out.Close()
	defer os.Remove(out.Name())
	cmd := exec.CommandContext(ctx, node, filepath.Join("node_modules", "vitest", "vitest.mjs"), "run", "--config", "bench/vitest.config.ts")
	cmd.Dir = frontend
	cmd.Env = append(os.Environ(), "TOFU_BENCH_OUT="+out.Name(), "NO_COLOR=1")
	if log, err := cmd.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("vitest: %w: %s", err, lastLine(log)))
	}
	data, err := os.ReadFile(out.Name())
	if err != nil {
		return fail(err)
	}
	var r uiStream
	if err := json.Unmarshal(data, &r); err != nil || r.Deltas == 0 {
		return fail(fmt.Errorf("the benchmark wrote no figures: %q", strings.TrimSpace(string(data))))
	}
	fig := fmt.Sprintf("total %.0f ms, worst delta %.1f ms (CPU; wall %.0f ms, worst %.1f ms; final update %.0f ms; %s)",
		r.TotalCPUMs, r.WorstDeltaCPUMs, r.TotalWallMs, r.WorstDeltaWallMs, r.FinalUpdateMs, r.Environment)
	return bench.Row{Measure: measure, Figure: fig, Anchor: anchor, Goal: goal}
}
