package attach

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

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
		if m, _ := Find(models, model); !llm.SeesImages(m) {
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
		if len(names) < 3 && llm.SeesImages(m) {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return "gemma3:4b, qwen2.5vl:7b or llava:7b (ollama pull gemma3:4b)"
	}
	return strings.Join(names, ", ")
}
