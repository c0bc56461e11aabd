package eval

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"text/tabwriter"
)

// Comparison is an ablation: two runs of a suite (A and B), task by task.
type Comparison struct {
	A, B  RunInfo
	Pairs []Pair // the tasks in both, by instance id
	// OnlyA and OnlyB are tasks one report has and the other lacks (left out of the pairs).
	OnlyA, OnlyB []string
}

// Pair is one task in both runs.
type Pair struct {
	InstanceID string
	A, B       TaskResult
}

// Compare pairs two reports of the same suite by instance id.
func Compare(a, b TasksReport) (Comparison, error) {
	if a.Run.SuiteSHA256 != b.Run.SuiteSHA256 {
		return Comparison{}, fmt.Errorf("the reports are runs of two suites (%s %.12s…, %s %.12s…): an ablation compares one suite",
			a.Run.Suite, a.Run.SuiteSHA256, b.Run.Suite, b.Run.SuiteSHA256)
	}
	c := Comparison{A: a.Run, B: b.Run}
	inB := map[string]TaskResult{}
	for _, t := range b.Tasks {
		inB[t.InstanceID] = t
	}
	inA := map[string]bool{}
	for _, t := range a.Tasks {
		inA[t.InstanceID] = true
		if bt, ok := inB[t.InstanceID]; ok {
			c.Pairs = append(c.Pairs, Pair{t.InstanceID, t, bt})
		} else {
			c.OnlyA = append(c.OnlyA, t.InstanceID)
		}
	}
	for _, t := range b.Tasks {
		if !inA[t.InstanceID] {
			c.OnlyB = append(c.OnlyB, t.InstanceID)
		}
	}
	sort.Slice(c.Pairs, func(i, j int) bool { return c.Pairs[i].InstanceID < c.Pairs[j].InstanceID })
	return c, nil
}

// Flips counts the pairs B resolves and A does not (gained), and the reverse (lost).
func (c Comparison) Flips() (gained, lost int) {
	for _, p := range c.Pairs {
		switch {
		case p.B.Resolved && !p.A.Resolved:
			gained++
		case p.A.Resolved && !p.B.Resolved:
			lost++
		}
	}
	return gained, lost
}

// SignTest is the exact two-sided sign test (McNemar's exact test) on the resolved flips:
// under "A and B resolve as often", each of the n = gained + lost flips goes either way with
// probability ½; p = P(a split at least as uneven). 1 when nothing flipped.
func SignTest(gained, lost int) float64 {
	n, k := gained+lost, min(gained, lost)
	if n == 0 {
		return 1
	}
	tail := new(big.Int)
	for i := 0; i <= k; i++ {
		tail.Add(tail, new(big.Int).Binomial(int64(n), int64(i)))
	}
	p, _ := new(big.Rat).SetFrac(new(big.Int).Mul(tail, big.NewInt(2)), new(big.Int).Lsh(big.NewInt(1), uint(n))).Float64()
	return math.Min(1, p)
}

// bootstrapResamples and bootstrapSeed fix the bootstrap: the same reports give the same
// interval.
const (
	bootstrapResamples = 10000
	bootstrapSeed      = 1
)

// BootstrapCI is the mean of d and its 95% paired bootstrap interval (percentile method:
// bootstrapResamples resamples of the tasks with replacement, a fixed seed).
func BootstrapCI(d []float64) (mean, lo, hi float64) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	mean = avg(d)
	rng := rand.New(rand.NewPCG(bootstrapSeed, bootstrapSeed))
	means := make([]float64, bootstrapResamples)
	for r := range means {
		var s float64
		for range d {
			s += d[rng.IntN(len(d))]
		}
		means[r] = s / float64(len(d))
	}
	sort.Float64s(means)
	return mean, means[int(0.025*bootstrapResamples)], means[int(0.975*bootstrapResamples)-1]
}

func avg(d []float64) float64 {
	var s float64
	for _, x := range d {
		s += x
	}
	return s / float64(len(d))
}

// metric is a per-task figure the table compares.
type metric struct {
	name   string
	format string
	of     func(TaskResult) float64
}

var metrics = []metric{
	{"tokens (in+out)", "%.0f", func(t TaskResult) float64 { return float64(t.InputTokens + t.OutputTokens) }},
	{"cost $", "%.4f", func(t TaskResult) float64 { return t.CostUSD }},
	{"steps", "%.1f", func(t TaskResult) float64 { return float64(t.Steps) }},
	{"wall s", "%.1f", func(t TaskResult) float64 { return float64(t.WallMS) / 1000 }},
}

// WriteText prints the ablation: what differs between the runs, a row per task (resolved in
// A and B, the flip, and B − A of tokens, cost, steps and wall time), the totals, and the
// statistics, each saying what it is.
func (c Comparison) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "A: %s\nB: %s\nB differs from A in: %s\n\n", describe(c.A), describe(c.B), configDiff(c.A.Config, c.B.Config))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tA resolved\tB resolved\tflip\tΔ tokens\tΔ cost $\tΔ steps\tΔ wall s")
	sign := func(a, b bool) string {
		switch {
		case b && !a:
			return "+"
		case a && !b:
			return "−"
		}
		return "="
	}
	var resA, resB int
	totA, totB := make([]float64, len(metrics)), make([]float64, len(metrics))
	for _, p := range c.Pairs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s", p.InstanceID, yesNo(p.A.Resolved), yesNo(p.B.Resolved), sign(p.A.Resolved, p.B.Resolved))
		for i, m := range metrics {
			a, b := m.of(p.A), m.of(p.B)
			totA[i] += a
			totB[i] += b
			fmt.Fprintf(tw, "\t%+"+m.format[1:], b-a)
		}
		fmt.Fprintln(tw)
		if p.A.Resolved {
			resA++
		}
		if p.B.Resolved {
			resB++
		}
	}
	fmt.Fprintf(tw, "total (%d tasks)\t%d\t%d\t%+d", len(c.Pairs), resA, resB, resB-resA)
	for i, m := range metrics {
		fmt.Fprintf(tw, "\t%+"+m.format[1:], totB[i]-totA[i])
	}
	fmt.Fprintln(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	gained, lost := c.Flips()
	fmt.Fprintf(w, "\nResolved: A %d/%d, B %d/%d; B gains %d and loses %d. Sign test (exact, two-sided, on the %d flipped tasks): p = %.3g.\n",
		resA, len(c.Pairs), resB, len(c.Pairs), gained, lost, gained+lost, SignTest(gained, lost))
	fmt.Fprintf(w, "Paired differences B − A, mean per task with a 95%% bootstrap CI (percentile, %d resamples of the %d tasks, seed %d):\n",
		bootstrapResamples, len(c.Pairs), bootstrapSeed)
	for i, m := range metrics {
		d := make([]float64, len(c.Pairs))
		for j, p := range c.Pairs {
			d[j] = m.of(p.B) - m.of(p.A)
		}
		mean, lo, hi := BootstrapCI(d)
		f := m.format
		fmt.Fprintf(w, "  %-16s A %s, B %s; mean Δ %s [%s, %s]\n", m.name,
			fmt.Sprintf(f, totA[i]), fmt.Sprintf(f, totB[i]), fmt.Sprintf("%+"+f[1:], mean), fmt.Sprintf(f, lo), fmt.Sprintf(f, hi))
	}
	if len(c.OnlyA)+len(c.OnlyB) > 0 {
		fmt.Fprintf(w, "Not paired (in one report only): A %v, B %v\n", c.OnlyA, c.OnlyB)
	}
	return nil
}

func describe(r RunInfo) string {
	s := fmt.Sprintf("%s, model %s, mode %s", r.Suite, show(r.Config.Model), r.Config.Mode)
	if r.Config.Context != "" {
		s += ", context " + r.Config.Context
	}
	return s
}
