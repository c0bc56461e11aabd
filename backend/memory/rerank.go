package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// rerankPrompt asks a cheap model which candidates help; it answers with ids only, so the
// reply is short and parsed without guessing.
const rerankPrompt = `You pick memory records for an assistant. Given the user's latest message and numbered candidate records, answer with the ids of the records that would help answer it, most useful first, one per line. Answer "none" if none helps. No other text.`

// LooseRecall is what Candidates takes before a model reranks: lower bars, since the model
// judges relevance better than a score threshold.
var LooseRecall = RecallOptions{MinScore: 0.5, MinMatched: 1}

// RerankPurpose marks the usage of a rerank call (llm.Usage.Purpose).
const RerankPurpose = "memory_rerank"

// Rerank asks model which of cands help with query and returns those, in the model's order.
// An id the model invents is ignored; "none" returns nothing. The call's usage is returned
// whenever the model was asked (also on an error), for the caller to log like any call's.
func Rerank(ctx context.Context, p llm.Provider, model, query string, cands []Found) ([]Found, *llm.Usage, error) {
	if len(cands) == 0 {
		return nil, nil, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "User's message:\n%s\n\nCandidates:\n", query)
	byID := map[string]Found{}
	for _, f := range cands {
		byID[f.ID] = f
		fmt.Fprintf(&b, "- id %s: %s — %s\n  %s\n", f.ID, f.Name, f.Description, cut(strings.Join(strings.Fields(f.Body), " "), 300))
	}
	req := llm.Request{Model: model, MaxTokens: 200, Temperature: new(float64), Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: rerankPrompt},
		{Role: llm.RoleUser, Content: b.String()},
	}}
	var text strings.Builder
	var reported *llm.Usage
	start := time.Now()
	usage := func() *llm.Usage {
		u := llm.Usage{Model: model}
		if reported != nil {
			u = *reported
		}
		if u.Model == "" {
			u.Model = model
		}
		u.LocalInputTokens, u.LocalOutputTokens = tokens.CountRequest(req), tokens.Count(text.String())
		u.ContextWindow = 0 // the cheap model's window is not the conversation's
		if u.DurationMS == 0 {
			u.DurationMS = time.Since(start).Milliseconds()
		}
		u.Purpose = RerankPurpose
		return &u
	}
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			return nil, usage(), fmt.Errorf("rerank memory with %s: %w", model, err)
		}
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventRetry:
			text.Reset()
			reported = nil
		case llm.EventUsage:
			reported = ev.Usage
		}
	}
	var out []Found
	seen := map[string]bool{}
	for _, field := range strings.FieldsFunc(text.String(), func(r rune) bool {
		return r == '\n' || r == ',' || r == ' ' || r == '\t' || r == '`' || r == '"'
	}) {
		id := strings.Trim(field, ".;*[]()")
		if f, ok := byID[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, f)
		}
	}
	return out, usage(), nil
}
