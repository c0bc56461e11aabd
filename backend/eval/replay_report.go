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
	head := "calls\tsent as recorded\tsent\treduction\tcache reuse\tbilled-eq\tcache breaks\tmiss calls\tmentions\trereads\t"
	fmt.Fprintln(tw, "policy\t"+head)
	for _, p := range r.Policies {
		if p.Skip != "" {
			fmt.Fprintf(tw, "%s\tnot run: %s\t\t\t\t\t\t\t\t\t\t\n", p.Policy, p.Skip)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", p.Policy, row(p.Total))
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
	_, err := fmt.Fprintf(w, "\nTokens are o200k, recounted from the recorded messages (tool specs excluded); "+
		"\"reported\" is the provider's own count. cache reuse: share of sent tokens that repeat the previous "+
		"request byte for byte (whole messages); billed-eq: sent tokens with that share at %.1fx. "+
		"miss calls: calls whose reply names an identifier only the compacted content held, or re-reads/re-greps "+
		"a compacted output.\n", CacheReadPrice)
	return err
}

func row(t Totals) string {
	return fmt.Sprintf("%d\t%d\t%d\t%.1f%%\t%.1f%%\t%.0f\t%d\t%d (%.1f%%)\t%d\t%d",
		t.Calls, t.Original, t.Sent, 100*t.Reduction(), 100*t.CacheShare(), t.BilledEq, t.Moves,
		t.MissSteps, 100*t.MissRate(), t.Mentions, t.Rereads)
}

// WriteJSON writes the report as indented JSON, with the derived ratios.
func (r ReplayReport) WriteJSON(w io.Writer) error {
	type totals struct {
		Totals
		Reduction  float64 `json:"reduction"`
		CacheShare float64 `json:"cache_share"`
		MissRate   float64 `json:"miss_rate"`
	}
	type run struct {
		Trajectory string `json:"trajectory"`
		Format     string `json:"format"`
		Reported   int    `json:"reported_input_tokens,omitempty"`
		totals
	}
	type policy struct {
		Policy string `json:"policy"`
		Skip   string `json:"skip,omitempty"`
		Total  totals `json:"total"`
		Runs   []run  `json:"runs,omitempty"`
	}
	wrap := func(t Totals) totals { return totals{t, t.Reduction(), t.CacheShare(), t.MissRate()} }
	var out struct {
		Policies []policy `json:"policies"`
	}
	for _, p := range r.Policies {
		q := policy{Policy: p.Policy, Skip: p.Skip, Total: wrap(p.Total)}
		for _, x := range p.Runs {
			q.Runs = append(q.Runs, run{x.Trajectory, x.Format, x.Reported, wrap(x.Totals)})
		}
		out.Policies = append(out.Policies, q)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
