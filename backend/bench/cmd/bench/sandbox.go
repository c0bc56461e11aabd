package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tofu-research/tofu/backend/bench"
)

// sandboxRows time what the sandbox adds to a command the agent runs: `tofu sandbox run`
// (the boundary every command gets) paired with `tofu sandbox run --unconfined`, on a trivial
// command and on a real test run (a Go package's tests, its build cache warm in both: the
// warm-up run fills the sandbox's own cache).
func sandboxRows(ctx context.Context, c config) []bench.Row {
	ws, err := filepath.Abs(".")
	if err != nil {
		return []bench.Row{bench.NotMeasured("sandbox", "unconfined", "", err)}
	}
	type job struct {
		measure, goal string
		argv          []string
	}
	jobs := []job{
		{"sandbox: `true`, whole process", "≤ +10 ms (p50)", []string{"true"}},
		{"sandbox: a real test run (`go test -count=1 ./backend/search/`)", "≤ 1.05× (wall)", []string{"go", "test", "-count=1", "./backend/search/"}},
	}
	var rows []bench.Row
	for _, j := range jobs {
		in := append([]string{c.tofu, "sandbox", "run", "--cwd", ws, "--"}, j.argv...)
		out := append([]string{c.tofu, "sandbox", "run", "--unconfined", "--cwd", ws, "--"}, j.argv...)
		p, err := timed(ctx, c.runs, in, out)
		if err != nil {
			rows = append(rows, bench.NotMeasured(j.measure, "the same unconfined", j.goal, err))
			continue
		}
		rows = append(rows, bench.Row{Measure: j.measure,
			Figure: fmt.Sprintf("%s; +%.1f ms, %.3f× wall, %.3f× CPU", ms(p.A), float64(p.A.Wall-p.B.Wall)/1e6, p.Ratio, p.CPURatio),
			Anchor: "unconfined: " + ms(p.B), Goal: j.goal})
	}
	return rows
}
