package lang

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/assets"
	"github.com/tofu-research/tofu/backend/llm"
)

// ModelTranslator translates chunks with a language model (the translation model of the
// settings).
type ModelTranslator struct {
	Provider llm.Provider
	Model    string
}

func (m ModelTranslator) Translate(ctx context.Context, text, from, to string, attempt int) (string, error) {
	system := strings.NewReplacer("{{from}}", Name(from), "{{to}}", Name(to)).Replace(assets.Prompt("translate"))
	if attempt > 0 {
		system += "\nA previous attempt dropped placeholders: every [[Tn]] of the text must appear in the reply."
	}
	zero := 0.0
	req := llm.Request{Model: m.Model, Temperature: &zero, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: text},
	}}
	var b strings.Builder
	for ev, err := range m.Provider.Stream(ctx, req) {
		if err != nil {
			return "", fmt.Errorf("translation model %s: %w", m.Model, err)
		}
		switch ev.Kind {
		case llm.EventText:
			b.WriteString(ev.Text)
		case llm.EventRetry:
			b.Reset()
		}
	}
	out := strings.TrimSpace(b.String())
	if out == "" {
		return "", errors.New("the translation model answered nothing")
	}
	return out, nil
}

// Name is a language's English name for a prompt ("fr" → "French"); an unknown code is
// returned as it is.
func Name(code string) string {
	if n, ok := names[code]; ok {
		return n
	}
	return code
}

var names = map[string]string{
	"en": "English", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "fr": "French", "de": "German",
	"es": "Spanish", "pt": "Portuguese", "it": "Italian", "nl": "Dutch", "ru": "Russian", "uk": "Ukrainian",
	"pl": "Polish", "cs": "Czech", "sv": "Swedish", "da": "Danish", "fi": "Finnish", "no": "Norwegian",
	"nb": "Norwegian", "tr": "Turkish", "ar": "Arabic", "he": "Hebrew", "fa": "Persian", "hi": "Hindi",
	"bn": "Bengali", "ta": "Tamil", "th": "Thai", "vi": "Vietnamese", "id": "Indonesian", "ms": "Malay",
	"el": "Greek", "hu": "Hungarian", "ro": "Romanian", "bg": "Bulgarian", "ca": "Catalan",
}
