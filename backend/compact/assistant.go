package compact

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/tofu-research/tofu/backend/llm"
)

// codeBlock finds fenced code blocks: the opening fence line, the body, the closing fence.
var codeBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)(```[^\\n]*\\n)(.*?)(```)") })

// compactAssistant shortens a cold assistant message: long prose before the first code block
// keeps its head; strong (the message is out of the working set) a long message keeps only the
// head of its prose and its last code block. Long code blocks and long string arguments of
// tool calls keep their first and last lines. What was cut
// is named by one ref (of assistantBlob) on a final line. It reports whether anything changed.
func compactAssistant(m llm.Message, c L1Config, strong bool) (llm.Message, bool) {
	if strings.Contains(m.Content, "[assistant message compacted — ") {
		return m, false
	}
	orig := assistantBlob(m)
	ref := Ref(orig)
	changed := false
	// Code blocks first, then the prose around them.
	var blocks []string
	prose := codeBlock().ReplaceAllStringFunc(m.Content, func(b string) string {
		p := codeBlock().FindStringSubmatch(b)
		body := p[2]
		if len(body) > c.ArgsMinChars {
			body = shortLines(body, c.PreviewChars)
			changed = true
		}
		blocks = append(blocks, p[1]+body+p[3])
		return "\x00"
	})
	// A long message keeps the head of its prose (the reasoning's gist) and its action, the
	// last code block (what ran; its output follows): the prose between blocks and the blocks
	// it quoted are spent once the step ran.
	if head, rest, found := strings.Cut(prose, "\x00"); strong && len(m.Content) > c.AssistantMinChars {
		// Old enough to be out of the working set: the prose between blocks and the blocks it
		// quoted are spent; the head and the action (the last block) remain.
		prose = clip(strings.TrimSpace(head), c.AssistantKeepChars) + "\n"
		if len(blocks) > 0 {
			blocks = blocks[len(blocks)-1:]
			prose += "\x00\n"
		}
		changed = true
	} else if len(head) > c.AssistantMinChars {
		// Cold: the reasoning before the first block is cut; later prose is short as a rule.
		prose = clip(head, c.AssistantKeepChars) + "\n"
		if found {
			prose += "\x00" + rest
		}
		changed = true
	}
	var out strings.Builder
	for i, part := range strings.Split(prose, "\x00") {
		out.WriteString(part)
		if i < len(blocks) {
			out.WriteString(blocks[i])
		}
	}
	var calls []llm.ToolCall
	for _, tc := range m.ToolCalls {
		if len(tc.Arguments) > c.ArgsMinChars {
			if a, ok := shortArgs(tc.Arguments, c.ArgsMinChars, c.PreviewChars); ok {
				tc.Arguments = a
				changed = true
			}
		}
		calls = append(calls, tc)
	}
	if !changed {
		return m, false
	}
	m.Content = out.String()
	m.ToolCalls = calls
	note := fmt.Sprintf("[assistant message compacted — was %s chars; ref %s: read_result reopens it]",
		comma(len(orig)), ref)
	if m.Content != "" && !strings.HasSuffix(m.Content, "\n") {
		m.Content += "\n"
	}
	if n := namesLine(orig, m.Content+string(argsText(calls)), c.Names); n != "" {
		m.Content += n + "\n"
	}
	m.Content += note
	return m, true
}

// assistantBlob is the text an assistant placeholder's ref names: the content, then each call's
// arguments on its own line.
func assistantBlob(m llm.Message) string {
	var b strings.Builder
	b.WriteString(m.Content)
	for _, tc := range m.ToolCalls {
		b.WriteString("\n" + tc.Name + " " + string(tc.Arguments))
	}
	return b.String()
}

// shortLines keeps the first and last line of a long text (clipped to n) and says how many
// lines were cut between them.
func shortLines(s string, n int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) <= 2 {
		return clip(s, 2*n) + "\n"
	}
	return fmt.Sprintf("%s\n[… %s lines compacted …]\n%s\n", clip(lines[0], n), comma(len(lines)-2), clip(lines[len(lines)-1], n))
}

// shortArgs shortens the long string fields of a JSON object of arguments; keys are written in
// sorted order, so the result is deterministic.
func shortArgs(raw json.RawMessage, min, n int) (json.RawMessage, bool) {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return raw, false
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	changed := false
	for _, k := range keys {
		if s, ok := args[k].(string); ok && len(s) > min {
			args[k] = strings.TrimSuffix(shortLines(s, n), "\n")
			changed = true
		}
	}
	if !changed {
		return raw, false
	}
	b, err := json.Marshal(args)
	if err != nil {
		return raw, false
	}
	return b, true
}

func argsText(calls []llm.ToolCall) []byte {
	var b []byte
	for _, tc := range calls {
		b = append(b, tc.Arguments...)
	}
	return b
}
