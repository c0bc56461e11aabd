package attach

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

// visionFamilies are names of model families that see images, for providers that do not
// say (an OpenAI-compatible server other than OpenRouter; an Ollama too old to report
// capabilities). A name matches when it contains one of them.
var visionFamilies = []string{
	// Ollama's library
	"llava", "bakllava", "moondream", "minicpm-v", "llama3.2-vision", "llama4", "gemma3", "qwen2.5vl",
	"qwen2.5-vl", "qwen2-vl", "qwen3-vl", "granite3.2-vision", "mistral-small3.1", "mistral-small3.2",
	"pixtral", "llama-3.2-11b-vision", "llama-3.2-90b-vision", "internvl", "phi-3-vision", "phi-4-multimodal",
	// hosted APIs
	"gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "claude", "gemini", "grok-4", "grok-2-vision",
}

// visionPrefixes are families matched at the start of a name only (short names).
var visionPrefixes = []string{"o1", "o3", "o4"}

// notVision are names containing a visionFamilies entry that do not see images.
var notVision = []string{"o1-mini", "o3-mini", "gpt-4o-audio", "gpt-4o-transcribe", "gpt-4o-mini-tts", "gpt-4o-search"}

// SeesImages says whether m takes images: its capabilities when the provider reported any,
// else the known families.
func SeesImages(m llm.ModelInfo) bool {
	if len(m.Capabilities) > 0 {
		return m.Has(llm.CapVision)
	}
	name := strings.ToLower(m.Name)
	for _, n := range notVision {
		if strings.Contains(name, n) {
			return false
		}
	}
	for _, f := range visionFamilies {
		if strings.Contains(name, f) {
			return true
		}
	}
	name = name[strings.LastIndex(name, "/")+1:] // openai/o3 on a router
	for _, f := range visionPrefixes {
		if strings.HasPrefix(name, f) {
			return true
		}
	}
	return false
}

// Find is the entry of models that model names: "name" or "provider/name" (Ollama's
// implicit ":latest" included). ok is false when no entry matches.
func Find(models []llm.ModelInfo, model string) (llm.ModelInfo, bool) {
	plain := func(s string) string { return strings.TrimSuffix(s, ":latest") }
	for _, m := range models {
		if plain(m.Name) == plain(model) || plain(m.Provider+"/"+m.Name) == plain(model) {
			return m, true
		}
	}
	return llm.ModelInfo{Name: model}, false
}

// Check refuses attachments model cannot take, before anything is sent: images for a model
// that does not see them (naming vision models the providers offer, else well-known ones),
// and files whose text would fill more than half of the model's context window (window 0:
// unknown, not checked). models are the providers' models.
func Check(model string, window int, models []llm.ModelInfo, atts []store.Attachment) error {
	images, tok := 0, 0
	for _, a := range atts {
		if a.Kind == store.AttachImage {
			images++
		}
		tok += a.Tokens
	}
	if images > 0 && strings.HasPrefix(model, "agent:") {
		return fmt.Errorf("%s is a coding agent: it takes text only; remove the image, or choose a vision model such as %s", model, suggest(models))
	}
	if images > 0 {
		if m, _ := Find(models, model); !SeesImages(m) {
			return fmt.Errorf("%s cannot see images; choose a vision model such as %s, or remove the image", model, suggest(models))
		}
	}
	if window > 0 && tok > window/2 {
		return fmt.Errorf("the attachments take %d tokens, more than half of %s's %d-token context window: remove one, or choose a model with a larger window", tok, model, window)
	}
	return nil
}

// suggest names up to three vision models the providers offer, else well-known local ones.
func suggest(models []llm.ModelInfo) string {
	var names []string
	for _, m := range models {
		if len(names) < 3 && SeesImages(m) {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return "gemma3:4b, qwen2.5vl:7b or llava:7b (ollama pull gemma3:4b)"
	}
	return strings.Join(names, ", ")
}
