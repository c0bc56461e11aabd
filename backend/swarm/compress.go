package swarm

import (
	"fmt"
	"strings"

	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// compress fits an agent's result into budget o200k tokens for the agents that depend on it.
// A result that fits is kept whole. Otherwise the fenced code blocks are kept whole while they
// fit (code cut in the middle is worse than none), the prose around them is cut to what is
// left, its beginning and end first (findings usually open or close a reply), and a note says
// how much was left out.
func compress(text string, budget int) string {
	text = strings.TrimSpace(text)
	n := tokens.Count(text)
	if n <= budget {
		return text
	}
	note := fmt.Sprintf("\n[… compressed from %d tokens: the full result is in the agent's session]", n)
	left := budget - tokens.Count(note)
	prose, blocks := splitCode(text)
	var kept []string
	for _, b := range blocks {
		if c := tokens.Count(b); c <= left-left/4 { // leave a quarter of the budget to prose
			kept = append(kept, b)
			left -= c + 1
		}
	}
	out := cutProse(prose, left)
	if len(kept) > 0 {
		out += "\n\n" + strings.Join(kept, "\n\n")
	}
	return out + note
}

// splitCode separates the fenced code blocks (``` … ```) from the prose, keeping each block's
// fences; an unclosed fence leaves the rest as prose.
func splitCode(text string) (prose string, blocks []string) {
	var p strings.Builder
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			p.WriteString(lines[i] + "\n")
			continue
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
				end = j
				break
			}
		}
		if end < 0 {
			p.WriteString(strings.Join(lines[i:], "\n"))
			break
		}
		blocks = append(blocks, strings.Join(lines[i:end+1], "\n"))
		p.WriteString("[code block]\n")
		i = end
	}
	return strings.TrimSpace(p.String()), blocks
}

// cutProse keeps the beginning and the end of text within budget tokens.
func cutProse(text string, budget int) string {
	if budget <= 0 {
		return ""
	}
	if tokens.Count(text) <= budget {
		return text
	}
	const gap = "\n[…]\n"
	runes := []rune(text)
	// Halve the kept share until it fits: tokens are not characters, so measure.
	keep := len(runes) * budget / max(tokens.Count(text), 1)
	for keep > 0 {
		head, tail := runes[:keep*2/3], runes[len(runes)-keep/3:]
		s := string(head) + gap + string(tail)
		if tokens.Count(s) <= budget {
			return s
		}
		keep = keep * 9 / 10
	}
	return ""
}

// ResultShare is the o200k tokens each of deps dependency results gets in the brief of an
// agent whose model runs with window (for `tofu eval swarm`).
func ResultShare(window, deps int) int { return budgetOf(window).share(deps) }
