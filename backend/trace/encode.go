package trace

import (
	"encoding/json"
	"fmt"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/anthropic"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/openai"
)

// encode is the body the provider client of format sends for req with its params: each
// client's own encoder, the one its Stream uses.
func encode(format string, req llm.Request, params json.RawMessage) ([]byte, error) {
	switch format {
	case llm.WireOllama:
		return ollama.Encode(req, params)
	case llm.WireOpenAI:
		return openai.Encode(req, params)
	case llm.WireAnthropic:
		return anthropic.Encode(req, params)
	}
	return nil, fmt.Errorf("no encoder for the wire format %q", format)
}
