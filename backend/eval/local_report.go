package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteJSON writes the report as indented JSON.
func (r LocalReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func share(x float64) string {
	if x < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// WriteText renders every step of every run, the totals side by side, and time to first token
// against the step's evaluated tokens.
func (r LocalReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Ollama at %s, model %s, num_ctx %d\n\n", r.Server, r.Model, r.Window)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tpolicy\tparallel\tsession\tstep\tsent (o200k)\tprompt\tevaluated\tprefill ms\tTTFT ms\t")
	for _, run := range r.Runs {
		for _, s := range run.Steps {
			kind := fmt.Sprint(s.Step)
			if s.Summary {
				kind += " (summary model)"
			} else if s.Moved {
				kind += " (move)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%d\t%d\t%.0f\t%.0f\t\n", run.Mode, run.Policy, run.Parallel,
				s.Session, kind, s.Sent, s.Prompt, s.Evaluated, s.PrefillMS, s.TTFTMS)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tpolicy\tparallel\tsteps\tmoves\tprompt tokens\tevaluated\tfrom cache\tlimit\tprefill s\t")
	for _, run := range r.Runs {
		t := run.Total
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.1f\t\n", run.Mode, run.Policy, run.Parallel, t.Steps, t.Moves,
			t.Prompt, t.Evaluated, share(t.CacheShare()), share(t.Limit()), t.PrefillMS/1000)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tsession\tsteps\tmoves\tprompt tokens\tevaluated\tfrom cache\tlimit\t")
	for _, s := range r.Sessions {
		t := s.Total
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t\n", s.Policy, s.Session, t.Steps, t.Moves, t.Prompt, t.Evaluated,
			share(s.Share), share(s.Limit))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "evaluated tokens\t"
	for b := 0; b+1 < len(LocalBands); b++ {
		head += fmt.Sprintf("TTFT, prompt %s\t", band(b))
	}
	fmt.Fprintln(tw, head)
	for _, p := range r.TTFT {
		line := fmt.Sprintf("%d–%d\t", p.From, p.To)
		if p.To >= 1<<30 {
			line = fmt.Sprintf("%d+\t", p.From)
		}
		for b := range p.MS {
			if p.Count[b] == 0 {
				line += "—\t"
				continue
			}
			line += fmt.Sprintf("%.0f ms (%d)\t", p.MS[b], p.Count[b])
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, run := range r.Runs {
		for _, s := range run.Stopped {
			fmt.Fprintf(w, "%s/%s stopped %s: the window plan would summarize there (not replayed)\n", run.Mode, run.Policy, s)
		}
	}
	_, err := fmt.Fprintf(w, "\nfrom cache = 1 - evaluated / prompt tokens (the model's tokens; evaluated from the runner's cache-slot log). "+
		"limit: only what each prompt grew by is evaluated. Local policy: %s from cache (limit %s); 3 sessions at once: %s "+
		"(one slot: %s); naive resend: %s; hosted-cache policy: %s.\n", share(r.CacheShare), share(r.CacheLimit), share(r.CacheShare3),
		share(r.CacheShare3Slot1), share(r.NaiveCacheShare), share(r.HostedCacheShare))
	return err
}

func band(b int) string {
	lo, hi := LocalBands[b], LocalBands[b+1]
	if hi >= 1<<30 {
		return fmt.Sprintf("≥ %d", lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}
