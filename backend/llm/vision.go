package llm

import (
	"strings"
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
func SeesImages(m ModelInfo) bool {
	if len(m.Capabilities) > 0 {
		return m.Has(CapVision)
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

// ImageOmitted stands for an image in a request to a model that does not take images (a
// conversation switched from a vision model to a text-only one keeps its earlier images in
// the log; the text-only model reads this note instead).
const ImageOmitted = "[image omitted: this model does not take images]"

// HasImages reports whether any message carries an image.
func HasImages(msgs []Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// OmitImages returns msgs with every image replaced by ImageOmitted at the end of its
// message's text (one note per image); msgs itself is not changed.
func OmitImages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		for range m.Images {
			if m.Content != "" {
				m.Content += "\n"
			}
			m.Content += ImageOmitted
		}
		m.Images = nil
		out[i] = m
	}
	return out
}
