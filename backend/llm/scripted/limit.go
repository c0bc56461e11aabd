package scripted

import (
	"sort"

	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// limitOutput stops a reply at maxTokens output tokens (o200k), as a real Ollama stops at
// num_predict: the text ends mid-sentence, tool calls the model had not reached are gone, the
// final chunk says done_reason "length" and eval_count is the limit. A reply within the limit is
// left as it is. Found by the contract tests against a real `ollama serve`
// (backend/llm/ollama/real_test.go).
func limitOutput(a *answer, maxTokens int) {
	if maxTokens <= 0 || a.outputToks <= maxTokens {
		return
	}
	left := maxTokens
	kept := a.pieces[:0:0]
	for _, p := range a.pieces {
		n := tokens.Count(p.text)
		if n > left {
			if cut := prefixWithin(p.text, left); cut != "" {
				kept = append(kept, piece{reasoning: p.reasoning, text: cut})
			}
			break
		}
		kept, left = append(kept, p), left-n
	}
	a.pieces, a.calls = kept, nil
	a.outputToks, a.DoneReason = maxTokens, "length"
}

// prefixWithin is the longest prefix of s, cut between characters, that counts at most n tokens.
func prefixWithin(s string, n int) string {
	var cuts []int // character boundaries, ascending
	for i := range s {
		cuts = append(cuts, i)
	}
	cuts = append(cuts, len(s))
	i := sort.Search(len(cuts), func(i int) bool { return tokens.Count(s[:cuts[i]]) > n })
	if i == 0 {
		return ""
	}
	return s[:cuts[i-1]]
}
