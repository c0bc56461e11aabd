package trace

import (
	"fmt"
	"strings"
)

// Summary says, one line each, how the calls were checked and what came from outside the log.
func (r Result) Summary() []string {
	var out []string
	if len(r.Rebuilt) > 0 {
		out = append(out, fmt.Sprintf("rebuilt from the log and hashed: %s (the conversation projected from the log, "+
			"with its L2 summaries and the context manager's L1 view computed again, encoded again by the %s client)",
			calls(r.Rebuilt), strings.Join(r.Formats, ", ")))
	}
	if len(r.Summaries) > 0 {
		out = append(out, fmt.Sprintf("L2 summariser's requests rebuilt from the view up to their compaction: %s "+
			"(its prompt and the context config taken from the blobs the call recorded, checked against their hash)",
			calls(r.Summaries)))
	}
	for _, p := range []struct {
		list []int
		what string
	}{
		{r.FromSystem, "the system prompt (from the settings and instruction files of the time)"},
		{r.FromTools, "the tool specs (from the tool families switched on at the time)"},
		{r.FromContext, "the context manager's config and L1 state"},
		{r.FromAugmented, "the paper reader's messages (passages retrieved from the library at the time)"},
	} {
		if len(p.list) > 0 {
			out = append(out, fmt.Sprintf("not in the log, taken from the blob the call recorded (checked against its hash): %s, %s",
				p.what, calls(p.list)))
		}
	}
	if len(r.KeptOnly) > 0 {
		out = append(out, fmt.Sprintf("not rebuilt (recorded before requests could be): %s, checked against the bytes kept "+
			"and the user messages of the log", calls(r.KeptOnly)))
	}
	if len(r.Unsent) > 0 {
		verb := "it was"
		if len(r.Unsent) > 1 {
			verb = "they were"
		}
		out = append(out, fmt.Sprintf("nothing to check: %s, refused before %s sent (the client found the request "+
			"would not fit the model's window; no request left Tofu)", calls(r.Unsent), verb))
	}
	return out
}

// calls names call numbers, runs of consecutive ones as ranges: "calls 1–3, 5".
func calls(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", ns[i], ns[j]))
		} else {
			parts = append(parts, fmt.Sprint(ns[i]))
		}
		i = j + 1
	}
	word := "calls "
	if len(ns) == 1 {
		word = "call "
	}
	return word + strings.Join(parts, ", ")
}
