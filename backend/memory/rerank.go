package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// rerankPrompt asks a cheap model which candidates help; it answers with ids only, so the
// reply is short and parsed without guessing.
const rerankPrompt = `You pick memory records for an assistant. Given the user's latest message and numbered candidate records, answer with the ids of the records that would help answer it, most useful first, one per line. Answer "none" if none helps. No other text.`

// LooseRecall is what Candidates takes before a model reranks: lower bars, since the model
// judges relevance better than a score threshold.
var LooseRecall = RecallOptions{MinScore: 0.5, MinMatched: 1}

// Rerank asks model which of cands help with query and returns those, in the model's order.
// An id the model invents is ignored; "none" returns nothing.
func Rerank(ctx context.Context, p llm.Provider, model, query string, cands []Found) ([]Found, error) {
	if len(cands) == 0 {
		return nil, nil
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
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			return nil, fmt.Errorf("rerank memory with %s: %w", model, err)
		}
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventRetry:
			text.Reset()
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
	return out, nil
}
