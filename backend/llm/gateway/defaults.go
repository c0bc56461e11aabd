package gateway

import (
	"github.com/tofu-research/tofu/backend/config"
	"github.com/tofu-research/tofu/backend/llm/anthropic"
	"github.com/tofu-research/tofu/backend/llm/ollama"
	"github.com/tofu-research/tofu/backend/llm/openai"
)

// DefaultBaseURLs is what each provider type's client uses for an empty base URL.
func DefaultBaseURLs() map[string]string {
	return map[string]string{
		config.TypeOllama:    ollama.DefaultBaseURL(),
		config.TypeOpenAI:    openai.DefaultBaseURL,
		config.TypeAnthropic: anthropic.DefaultBaseURL,
	}
}
