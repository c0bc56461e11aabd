// Package bench gathers the figures of `make bench` into one table: whole-process timings of
// commands (median of several runs after a warm-up, paired against an anchor command run in
// turn with it, so the ratio holds while a shared machine's speed drifts), and the results of
// Tofu's own evaluations and Go benchmarks beside their anchors. It never judges: the table
// shows figures, anchors and goals, and a reader compares them.
package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"time"
)

// Timing is one command's whole-process figures: medians over the counted runs.
type Timing struct {
	Wall time.Duration // from start to exit
	CPU  time.Duration // user + system, the process and its waited-for children
}

// Pair is a command timed in turn with its anchor: A B A B ...
type Pair struct {
	A, B Timing
	// Ratio and CPURatio are the medians of the per-pair ratios A/B of wall and CPU time
	// (on a loaded machine the CPU ratio is the steadier of the two).
	Ratio, CPURatio float64
}

// run starts argv once, its output thrown away, and returns its figures; a command that
// exits non-zero is an error (a timing of a failure would mislead).
func run(ctx context.Context, argv []string) (Timing, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return Timing{}, fmt.Errorf("%v: %w: %s", argv, err, bytes.TrimSpace(stderr.Bytes()))
	}
	st := cmd.ProcessState
	return Timing{Wall: wall, CPU: st.UserTime() + st.SystemTime()}, nil
}

// Compare runs a and b in turn, one warm-up each, then runs counted pairs.
func Compare(ctx context.Context, runs int, a, b []string) (Pair, error) {
	if runs < 1 || len(a) == 0 || len(b) == 0 {
		return Pair{}, errors.New("compare: need runs ≥ 1 and two commands")
	}
	if _, err := run(ctx, a); err != nil {
		return Pair{}, err
	}
	if _, err := run(ctx, b); err != nil {
		return Pair{}, err
	}
	var as, bs []Timing
	var ratios, cpuRatios []float64
	for range runs {
		ta, err := run(ctx, a)
		if err != nil {
			return Pair{}, err
		}
		tb, err := run(ctx, b)
		if err != nil {
			return Pair{}, err
		}
		as, bs = append(as, ta), append(bs, tb)
		ratios = append(ratios, float64(ta.Wall)/float64(max(tb.Wall, 1)))
		cpuRatios = append(cpuRatios, float64(ta.CPU)/float64(max(tb.CPU, time.Microsecond)))
	}
	return Pair{A: median(as), B: median(bs), Ratio: medianFloat(ratios), CPURatio: medianFloat(cpuRatios)}, nil
}

// median takes the median wall and the median CPU separately.
func median(ts []Timing) Timing {
	walls := make([]float64, len(ts))
	cpus := make([]float64, len(ts))
	for i, t := range ts {
		walls[i], cpus[i] = float64(t.Wall), float64(t.CPU)
	}
	return Timing{Wall: time.Duration(medianFloat(walls)), CPU: time.Duration(medianFloat(cpus))}
}

func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}
