package scripted

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tofu-research/tofu/backend/llm"
)

// The demo and the paper reader: the scripted model cannot read, so asked about a paper it says
// so and shows what Tofu retrieved for the question (the passage and its page), which is true,
// instead of a scripted filler that reads like an answer (a passage with the word "long" in it
// once streamed the stop-button test's text). The app does not ask it for a report at all
// (app/papers.go).

// paperQAPrefix opens the paper Q&A's system prompt (assets/prompts/paper_qa.md).
const paperQAPrefix = "You are answering questions about the paper"

// asksAboutAPaper reports whether req is the paper reader's question.
func asksAboutAPaper(req llm.Request) bool {
	for _, m := range req.Messages {
		if m.Role == llm.RoleSystem && strings.Contains(m.Content, paperQAPrefix) {
			return true
		}
	}
	return false
}

var pageMark = regexp.MustCompile(`\[page (\d+)\]`)

// demoPaperAnswer says what the demo model is and quotes the first passage given, cited.
func demoPaperAnswer(req llm.Request) Reply {
	text := "The demo's scripted model cannot read papers, so this is not an answer to your question."
	msg := LastUser(req)
	if at := pageMark.FindStringSubmatchIndex(msg); at != nil {
		page := msg[at[2]:at[3]]
		words := strings.Fields(pageMark.ReplaceAllString(msg[at[1]:], " "))
		quote := strings.Join(words[:min(len(words), 30)], " ")
		if len(words) > 30 {
			quote += " …"
		}
		text += fmt.Sprintf(" What Tofu found for it is real: the passage it would give a model begins on page %s:\n\n> %s [p. %s]\n\n", page, quote, page)
	} else {
		text += " "
	}
	text += "With a real model (install one with `ollama pull qwen3:8b`, or add a provider in Settings) the answer is written from such passages, each claim citing its page."
	return Reply{Text: text, Chunks: 4}
}
