package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/router"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/wording"
)

// L2 in the loop: near the window a cheap model summarizes earlier turns; the summary is a
// compaction event that stands for them in later requests, the raw turns stay in the log, and a
// compaction_undo event withdraws it (docs/CONTEXT.md, "In the agent loop").

// view is what build saw: the raw projection of the log and the compaction applied to it.
type view struct {
	raw    []llm.Message
	active *compact.Compaction // in force (nil: none)
	undone bool                // the log's last compaction event is an undo
	l2     bool                // L2 runs on this request
}

// summarizes says whether L2 applies to t's requests: the main loop with a context manager
// (an autonomous run's phases project their own views, which a compaction does not index).
func (t *Turn) summarizes() bool { return t.Context != nil && t.project == nil }

// ActiveCompaction returns the compaction in force over conv (the projection of events): the
// latest one not undone whose messages still match conv (nil when none), and whether the last
// compaction or compaction_undo event of the log is an undo.
func ActiveCompaction(events []store.Event, conv []llm.Message) (*compact.Compaction, bool) {
	var all []compact.Compaction
	undone := map[string]bool{}
	lastUndo := false
	for _, ev := range events {
		switch ev.Type {
		case store.EventCompaction:
			var c compact.Compaction
			if ev.Decode(&c) == nil && c.ID != "" {
				all = append(all, c)
				lastUndo = false
			}
		case store.EventCompactionUndo:
			var u store.CompactionUndo
			if ev.Decode(&u) == nil {
				undone[u.ID] = true
				lastUndo = true
			}
		}
	}
	for i := len(all) - 1; i >= 0; i-- {
		if c := all[i]; !undone[c.ID] && c.Matches(conv) {
			return &c, lastUndo
		}
	}
	return nil, lastUndo
}

// RequestTokens is the size L2 decides on: the larger of Tofu's own count (o200k) of req and
// the provider's count of the last call, scaled by how req's local count differs from that
// call's (providers' tokenizers often count more than o200k). Calls before the last compaction
// or undo are not looked at: the conversation they saw was different.
func RequestTokens(req llm.Request, events []store.Event) int {
	local := tokens.CountRequest(req)
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if ev.Type == store.EventCompaction || ev.Type == store.EventCompactionUndo {
			break
		}
		var u llm.Usage
		if ev.Type != store.EventUsage || ev.Decode(&u) != nil || u.InputTokens <= 0 || u.Purpose != "" {
			continue // a side call (a rerank) saw another request
		}
		reported := u.InputTokens
		if u.LocalInputTokens > 0 {
			reported = int(int64(u.InputTokens) * int64(local) / int64(u.LocalInputTokens))
		}
		return max(local, reported)
	}
	return local
}

// lastWindow is the context window the last call reported running with (0 when none did).
func lastWindow(events []store.Event) int {
	for i := len(events) - 1; i >= 0; i-- {
		var u llm.Usage
		if events[i].Type == store.EventUsage && events[i].Decode(&u) == nil && u.ContextWindow > 0 && u.Purpose == "" {
			return u.ContextWindow
		}
	}
	return 0
}

// summaryOverhead is what the summary request needs besides the history and the reply (the
// prompt, the query, the headers), in tokens; minSummaryInput is the least history it reads.
const (
	summaryOverhead = 1_000
	minSummaryInput = 4_000
)

// summarize runs L2 on the view v (built from the log up to upto) of a request of est tokens:
// it asks the summary model for a compaction of the earlier turns and records it with a notice;
// nil means it did (compact.ErrNothingToSummarize: there was nothing to summarize; any other
// error: it failed, and the notice saying so is queued). The summariser's call is a model
// call of the session like the others: its usage, report and fingerprint are recorded before
// the compaction, with what its request was built from, so a trace builds it again. A failure
// is a notice, not the turn's error (the request goes out without the summary, and the turn
// does not try again).
func (a *Agent) summarize(ctx context.Context, t *Turn, v view, upto uint64, est, window int, cfg compact.Config, trigger string) error {
	model, sw := t.SummaryModel, t.SummaryWindow
	if model == "" {
		model, sw = t.Model, window
	}
	if sw > 0 {
		// What the summariser reads must fit its own window, with its prompt and its reply
		// (at about 3 characters per token, the providers' conservative estimate).
		fit := (sw - cfg.L2.MaxSummaryTokens - summaryOverhead) * 3
		if cfg.L2.MaxInputChars <= 0 || cfg.L2.MaxInputChars > fit {
			cfg.L2.MaxInputChars = max(fit, minSummaryInput)
		}
	}
	// The summariser reads the current view: a previous summary is summarized again with the
	// turns after it, and the new compaction is mapped back onto the raw messages.
	conv := v.raw
	if v.active != nil {
		conv = compact.Apply(v.raw, v.active, "")
	}
	var report *router.CallReport
	ctx = router.ReportTo(ctx, func(r router.CallReport) { report = &r })
	ctx, printed := a.tapRequests(ctx)
	c, usage, err := compact.Summarize(ctx, a.Provider, model, conv, window, cfg, trigger)
	if errors.Is(err, compact.ErrNothingToSummarize) {
		return err
	}
	if usage != nil {
		// Its tokens and cost count like the turn's own calls (the token panel, the session's
		// totals, My Day, the evals); its purpose keeps it out of the context meter and L2's
		// size of the conversation.
		if t.Price != nil {
			usage.CostUSD = t.Price(usage.Model, *usage)
		}
		t.j.later(store.EventUsage, *usage)
	}
	if report != nil {
		report.Request = printed(&recipe{upto: upto, system: compact.SummaryPrompt, context: &cfg,
			summary: &router.SummaryCall{Window: window}})
		t.j.later(store.EventModelCall, report)
	}
	if err == nil && v.active != nil {
		var ok bool
		if c, ok = c.Over(v.raw, v.active); !ok {
			err = errors.New("the summary does not cover the previous one")
		}
	}
	if err != nil {
		if !interrupted(ctx) {
			t.l2Failed = true
			failed := "Context compaction failed (" + err.Error() + "); the request goes out without it."
			if trigger == compact.TriggerManual {
				failed = "Context compaction failed (" + err.Error() + "); the conversation is as it was."
			}
			t.j.later(store.EventNotice, store.Notice{Text: failed})
		}
		return err
	}
	// What the next request will weigh: the view with the summary, L1 from a fresh state.
	after := a.assemble(t, compact.Apply(v.raw, &c, t.Instructions))
	st := compact.State{Base: c.ID}
	after.Messages, _ = compact.Build(after.Messages, &st, cfg)
	c.TokensBefore, c.TokensAfter = est, tokens.CountRequest(after)
	if window > 0 {
		c.ThresholdTokens = compact.Threshold(window, t.Context.Config.L2)
	}
	why := ""
	switch trigger {
	case "overflow":
		why = " after the model refused the request as too long"
	case compact.TriggerManual:
		why = " as you asked"
	}
	c.Instruction = cfg.L2.Instruction
	notice := store.Notice{Text: fmt.Sprintf(
		"Context compacted%s: %d earlier messages summarized (%s → %s tokens); undo in the transcript.",
		why, c.To-c.From, wording.Thousands(c.TokensBefore), wording.Thousands(c.TokensAfter))}
	_, err = t.j.record(store.Entry{Type: store.EventCompaction, Payload: c}, store.Entry{Type: store.EventNotice, Payload: notice})
	return err
}
