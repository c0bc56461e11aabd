package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText renders the report as an aligned table: per paper, F1, order
// and pages per second for Tofu and for pdftotext, then the means.
func (r Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "paper\tpages\ttruth\tsymbols\tTofu F1\tTofu order\tTofu sym\tTofu p/s\tpdftotext F1\tpdftotext order\tpdftotext sym\tpdftotext p/s\tof pdftotext's sym\t")
	cell := func(s Score) string {
		if s.Error != "" {
			return "error\t-\t-\t-"
		}
		return fmt.Sprintf("%.3f\t%.3f\t%.3f\t%.1f", s.F1, s.Order, s.SymbolRecall, s.PagesPerSec)
	}
	for _, p := range r.Papers {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%.3f\t\n", p.ID, p.Pages, p.GroundTruth, p.TruthSymbols, cell(p.Tofu), cell(p.Pdftotext), p.TofuOfPdftotextSymbols)
	}
	fmt.Fprintf(tw, "mean\t\t\t\t%s\t%s\t\t\n", cell(r.Tofu), cell(r.Pdftotext))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range r.Papers {
		for _, s := range []struct {
			name  string
			score Score
		}{{"Tofu", p.Tofu}, {"pdftotext", p.Pdftotext}} {
			if s.score.Error != "" {
				fmt.Fprintf(w, "%s, %s: %s\n", p.ID, s.name, s.score.Error)
			}
		}
	}
	if r.Note != "" {
		fmt.Fprintln(w, r.Note)
	}
	_, err := fmt.Fprintln(w, "F1: bag of words against the ground truth; order: share of anchor words (unique in both texts) in the truth's order; sym: share of the ground truth's math and typographic symbols (symbols: how many; Greek, operators, arrows, § † …; LaTeX macros read as the symbols they print) recovered, as multisets; of pdftotext's sym: share of pdftotext's symbols Tofu recovers; p/s: pages per second, fastest of the runs.")
	return err
}

// WriteJSON writes the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
