package ollama

import "github.com/tofu-research/tofu/backend/llm"

// Rough costs the byte count does not show. Chat templates wrap every message in a few special
// tokens; an image costs what its vision encoder makes of it (256 to ~1,500 tokens by model).
const (
	estimateBase       = 32
	estimatePerMessage = 8
	estimatePerImage   = 1024
)

// EstimateTokens is the default TokenEstimator: about one token per 3 bytes of text (BPE
// vocabularies average 3.5 to 4.5 bytes of English or code per token, and about 3 bytes per CJK
// character), plus per-message and per-image overheads. It errs on the high side so a prompt it
// accepts fits; a real tokenizer can replace it through WithTokenEstimator.
func EstimateTokens(req llm.Request) int {
	n := estimateBase
	for _, m := range req.Messages {
		b := len(m.Role) + len(m.Content) + len(m.Reasoning) + len(m.ToolName) + len(m.ToolCallID)
		for _, tc := range m.ToolCalls {
			b += len(tc.ID) + len(tc.Name) + len(tc.Arguments) + 16
		}
		n += (b+2)/3 + estimatePerMessage + len(m.Images)*estimatePerImage
	}
	for _, t := range req.Tools {
		// The template renders each tool as JSON with some framing.
		b := len(t.Name) + len(t.Description) + len(t.Parameters) + 48
		n += (b+2)/3 + estimatePerMessage
	}
	return n
}
