package ollama

import (
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/llm"
)

// Capabilities are what a model can do beyond plain text, from /api/show. Servers before
// Ollama 0.6.4 send no `capabilities`; then they are read the way Ollama itself derives them
// (a template naming .Tools offers tools, one naming .Think thinks, vision tensors or a
// projector see), and derived says so. chat is false for a model that only embeds.
func Capabilities(resp *api.ShowResponse) (caps []llm.Capability, chat, derived bool) {
	if len(resp.Capabilities) > 0 {
		for _, c := range resp.Capabilities {
			switch c {
			case "completion":
				chat = true
			case "tools":
				caps = append(caps, llm.CapTools)
			case "vision":
				caps = append(caps, llm.CapVision)
			case "thinking":
				caps = append(caps, llm.CapThinking)
			}
		}
		return caps, chat, false
	}
	if strings.Contains(resp.Template, ".Tools") {
		caps = append(caps, llm.CapTools)
	}
	if hasVision(resp) {
		caps = append(caps, llm.CapVision)
	}
	if strings.Contains(resp.Template, ".Think") {
		caps = append(caps, llm.CapThinking)
	}
	_, embeds := findKey(resp.ModelInfo, ".pooling_type")
	return caps, !embeds, true
}

// hasVision: a projector (llava-style models) or vision tensors in the model itself.
func hasVision(resp *api.ShowResponse) bool {
	if len(resp.ProjectorInfo) > 0 {
		return true
	}
	_, ok := findKey(resp.ModelInfo, ".vision.block_count")
	return ok
}

// findKey finds the model_info key ending in suffix (keys start with the architecture).
func findKey(info map[string]any, suffix string) (any, bool) {
	for k, v := range info {
		if strings.HasSuffix(k, suffix) {
			return v, true
		}
	}
	return nil, false
}
