package assist

import (
	"context"
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/tools"
)

// AskParams are ask_human's arguments.
type AskParams struct {
	Question string   `json:"question" alias:"text,prompt,message"`
	Options  []string `json:"options,omitempty" alias:"choices"`
}

// AskMeta is ask_human's Result.Meta.
type AskMeta struct {
	Question tools.Question `json:"question"`
	Answer   string         `json:"answer"`
}

// NewAskHuman returns the ask_human tool; asker (the loop and UI) puts the question to the
// user. Without an asker (headless), the model is told to proceed on its own.
func NewAskHuman(asker tools.Asker) tools.Tool {
	return tools.Define(tools.Def[AskParams]{
		Name:        "ask_human",
		Description: doc("ask_human"),
		Example:     `{"question":"Which database should the migration target?","options":["sqlite","postgres"]}`,
		Run: func(ctx context.Context, call tools.Call, p AskParams) (tools.Result, error) {
			if strings.TrimSpace(p.Question) == "" {
				return tools.Errorf("question is empty"), nil
			}
			if asker == nil {
				return tools.Errorf("no user is available to answer (headless run); decide yourself and state the assumption"), nil
			}
			q := tools.Question{CallID: call.ID, Text: p.Question, Options: p.Options}
			ans, err := asker.Ask(ctx, q)
			if err != nil {
				if ctx.Err() != nil {
					return tools.Result{}, ctx.Err()
				}
				return tools.Result{}, fmt.Errorf("ask_human: %w", err)
			}
			text := "The user answered: " + ans
			if strings.TrimSpace(ans) == "" {
				text = "The user gave no answer."
			}
			return tools.Result{Text: text, Meta: AskMeta{Question: q, Answer: ans}}, nil
		},
	})
}
