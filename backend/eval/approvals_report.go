package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/tofu-research/tofu/backend/wording"
)

// ReasonCount is one kind of reason and how many commands it stopped.
type ReasonCount struct {
	Reason string
	Count  int
}

// TopReasons are the reasons, the most frequent first.
func (r ApprovalsReport) TopReasons() []ReasonCount {
	var out []ReasonCount
	for k, n := range r.Reasons {
		out = append(out, ReasonCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// WriteJSON writes the report as indented JSON.
func (r ApprovalsReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the figure, the reasons by frequency, each command that asks, and the
// count per trajectory.
func (r ApprovalsReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%d of %d commands ask (%.1f%%), %d denied; commands: %s, approvals: %s\n\n",
		r.Asked, r.Commands, 100*r.AskedShare, r.Denied, r.Boundary, r.Mode)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "commands\treason\t")
	for _, rc := range r.TopReasons() {
		fmt.Fprintf(tw, "%d\t%s\t\n", rc.Count, rc.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Asking) > 0 {
		fmt.Fprintln(w, "\nCommands that ask or are denied:")
		for _, a := range r.Asking {
			fmt.Fprintf(w, "  %s  %s: %s\n      %s\n", a.Trajectory, a.Action, wording.ClipLine(a.Command, 120), wording.ClipLine(a.Detail, 240))
		}
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "trajectory\tcommands\tasked\tdenied\t")
	for _, t := range r.Trajectories {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", t.Trajectory, t.Commands, t.Asked, t.Denied)
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
	_, err := fmt.Fprintln(w, "\nEach shell command the agents ran is decided by the approval policy, nothing is run; "+
		"paths of the trajectories' machine (/testbed, /tmp, the home) are mapped into a scratch folder. "+
		"Commands that reach the network count as asking: hosts are asked at run time.")
	return err
}
