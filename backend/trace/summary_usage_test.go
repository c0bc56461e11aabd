package trace

import (
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/session"
	"github.com/tofu-research/tofu/backend/store"
)

// TestSummaryUsageCounts: the L2 summariser's call writes a priced usage event like the turn's
// own calls (one usage per model call, so every consumer adding usage events counts it), right
// before its model_call and marked as the summary's, without a window: what reads the last
// call's usage as the conversation's size (L2, the context meter) skips calls with a purpose.
func TestSummaryUsageCounts(t *testing.T) {
	t.Parallel()
	var cfg config.Config
	dir, id, bodies := summarySession(t, func(o *session.Options) {
		base := o.Config
		o.Config = func() (config.Config, error) {
			c, err := base()
			c.Prices = map[string]config.Price{scripted.DemoModelName: {Input: 1, Output: 2}}
			cfg = c
			return c, err
		}
	})
	st := open(t, dir)
	evs, err := st.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	var all, summaries []llm.Usage
	calls, at := 0, -1
	for i, e := range evs {
		switch e.Type {
		case store.EventModelCall:
			calls++
		case store.EventUsage:
			var u llm.Usage
			if err := e.Decode(&u); err != nil {
				t.Fatal(err)
			}
			all = append(all, u)
			if u.Purpose == compact.SummaryPurpose {
				summaries = append(summaries, u)
				if at < 0 {
					at = i
				}
			} else if u.Purpose != "" {
				t.Fatalf("usage with purpose %q", u.Purpose)
			}
		}
	}
	if calls != len(bodies) || len(all) != calls || len(summaries) == 0 || len(all)-len(summaries) != 6 {
		t.Fatalf("%d requests, %d model calls, %d usage events (%d summaries)", len(bodies), calls, len(all), len(summaries))
	}
	s := summaries[0]
	if s.InputTokens <= 0 || s.OutputTokens <= 0 || s.LocalInputTokens <= 0 || s.LocalOutputTokens <= 0 ||
		s.ContextWindow != 0 || s.CostUSD <= 0 || s.CostUSD != session.Price(cfg, s.Model, s) {
		t.Fatalf("summary usage: %+v", s)
	}
	// Its model_call follows it (the token panel takes the attempts from there), then the
	// compaction it made.
	var report struct {
		Request struct {
			Built struct {
				Summary *struct{} `json:"summary"`
			} `json:"built"`
		} `json:"request"`
	}
	if next := evs[at+1]; next.Type != store.EventModelCall || next.Decode(&report) != nil || report.Request.Built.Summary == nil {
		t.Fatalf("after the summary's usage: %s %s", next.Type, next.Data)
	}
}
