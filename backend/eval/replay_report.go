package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText renders the replay as two tables: the policies side by side over all trajectories,
// then each trajectory under each policy.
func (r ReplayReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "calls\tsent as recorded\tsent\treduction\tcache reuse\tbilled-eq as recorded\tbilled-eq\tcost cut\tcache breaks\tmiss calls\tmentions\trereads\t"
	fmt.Fprintln(tw, "policy\t"+head)
	for _, p := range r.Policies {
		if p.Skip != "" {
			fmt.Fprintf(tw, "%s\tnot run: %s\t\t\t\t\t\t\t\t\t\t\t\t\n", p.Policy, p.Skip)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", p.Policy, row(p.Total))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\ttrajectories\tmean reduction\tworst reduction\tmean cost cut\tworst cost cut\tmean miss calls\tworst miss calls\t")
	for _, p := range r.Policies {
		if p.Skip != "" || len(p.Runs) == 0 {
			continue
		}
		s := p.Spread()
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%% (%s)\t%.1f%%\t%.1f%% (%s)\t%.1f%%\t%.1f%% (%s)\t\n", p.Policy, len(p.Runs),
			100*s.MeanReduction, 100*s.WorstReduction.Value, s.WorstReduction.Trajectory,
			100*s.MeanCostCut, 100*s.WorstCostCut.Value, s.WorstCostCut.Trajectory,
			100*s.MeanMissRate, 100*s.WorstMissRate.Value, s.WorstMissRate.Trajectory)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "trajectory\tpolicy\treported\t"+head)
	for _, p := range r.Policies {
		for _, run := range p.Runs {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t\n", run.Trajectory, p.Policy, run.Reported, row(run.Totals))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "\nSkipped (%d):\n", len(r.Skipped))
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "  %s: %s\n", s.File, s.Reason)
		}
	}
	_, err := fmt.Fprintf(w, "\nTokens are o200k, recounted from the recorded messages (tool specs excluded); "+
		"\"reported\" is the provider's own count. cache reuse: share of sent tokens that repeat the previous "+
		"request byte for byte (whole messages); billed-eq: sent tokens with that share at %.1fx (uncached + "+
		"%.1f x cached); cost cut: billed-eq below the requests as recorded. "+
		"miss calls: calls whose reply names an identifier only the compacted content held, or re-reads/re-greps "+
		"a compacted output. Means and worst cases are over trajectories.\n", CacheReadPrice, CacheReadPrice)
	return err
}

// Extreme is the worst value of a figure over the trajectories, and where it was.
type Extreme struct {
	Value      float64 `json:"value"`
	Trajectory string  `json:"trajectory"`
}

// Spread is a policy's figures per trajectory: the unweighted means, and the worst case of
// each (the lowest reduction and cost cut, the highest miss rate).
type Spread struct {
	MeanReduction  float64 `json:"mean_reduction"`
	WorstReduction Extreme `json:"worst_reduction"`
	MeanCostCut    float64 `json:"mean_cost_cut"`
	WorstCostCut   Extreme `json:"worst_cost_cut"`
	MeanMissRate   float64 `json:"mean_miss_rate"`
	WorstMissRate  Extreme `json:"worst_miss_rate"`
}

// Spread summarises the policy's runs trajectory by trajectory.
func (p PolicyReport) Spread() Spread {
	var s Spread
	if len(p.Runs) == 0 {
		return s
	}
	for i, r := range p.Runs {
		red, cut, miss := r.Reduction(), r.CostCut(), r.MissRate()
		s.MeanReduction += red / float64(len(p.Runs))
		s.MeanCostCut += cut / float64(len(p.Runs))
		s.MeanMissRate += miss / float64(len(p.Runs))
		if i == 0 || red < s.WorstReduction.Value {
			s.WorstReduction = Extreme{red, r.Trajectory}
		}
		if i == 0 || cut < s.WorstCostCut.Value {
			s.WorstCostCut = Extreme{cut, r.Trajectory}
		}
		if i == 0 || miss > s.WorstMissRate.Value {
			s.WorstMissRate = Extreme{miss, r.Trajectory}
		}
	}
	return s
}

func row(t Totals) string {
	return fmt.Sprintf("%d\t%d\t%d\t%.1f%%\t%.1f%%\t%.0f\t%.0f\t%.1f%%\t%d\t%d (%.1f%%)\t%d\t%d",
		t.Calls, t.Original, t.Sent, 100*t.Reduction(), 100*t.CacheShare(), t.OriginalBilledEq, t.BilledEq,
		100*t.CostCut(), t.Moves, t.MissSteps, 100*t.MissRate(), t.Mentions, t.Rereads)
}

// WriteJSON writes the report as indented JSON, with the derived ratios.
func (r ReplayReport) WriteJSON(w io.Writer) error {
	type totals struct {
		Totals
		Reduction  float64 `json:"reduction"`
		CacheShare float64 `json:"cache_share"`
		CostCut    float64 `json:"cost_cut"`
		MissRate   float64 `json:"miss_rate"`
	}
	type run struct {
		Trajectory string `json:"trajectory"`
		Format     string `json:"format"`
		Reported   int    `json:"reported_input_tokens,omitempty"`
		totals
	}
	type policy struct {
		Policy string  `json:"policy"`
		Skip   string  `json:"skip,omitempty"`
		Total  totals  `json:"total"`
		Spread *Spread `json:"per_trajectory,omitempty"`
		Runs   []run   `json:"runs,omitempty"`
	}
	wrap := func(t Totals) totals { return totals{t, t.Reduction(), t.CacheShare(), t.CostCut(), t.MissRate()} }
	var out struct {
		Policies []policy  `json:"policies"`
		Skipped  []Skipped `json:"skipped,omitempty"`
	}
	out.Skipped = r.Skipped
	for _, p := range r.Policies {
		q := policy{Policy: p.Policy, Skip: p.Skip, Total: wrap(p.Total)}
		if len(p.Runs) > 0 {
			s := p.Spread()
			q.Spread = &s
		}
		for _, x := range p.Runs {
			q.Runs = append(q.Runs, run{x.Trajectory, x.Format, x.Reported, wrap(x.Totals)})
		}
		out.Policies = append(out.Policies, q)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
