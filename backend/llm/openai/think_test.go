package openai

import (
	"strings"
	"testing"
)

// splitAll feeds chunks through a splitter and joins what it sorted.
func splitAll(chunks []string) (reasoning, text string) {
	var s thinkSplitter
	var r, t strings.Builder
	add := func(segs []segment) {
		for _, x := range segs {
			if x.reasoning {
				r.WriteString(x.text)
			} else {
				t.WriteString(x.text)
			}
		}
	}
	for _, c := range chunks {
		add(s.Push(c))
	}
	add(s.Flush())
	return r.String(), t.String()
}

func TestThinkSplitter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, reasoning, text string
	}{
		{"tags", "<think>plan it</think>\n\nThe answer.", "plan it", "The answer."},
		{"leading space", "\n <think>a</think>b", "a", "b"},
		{"no tags", "Just text, <b>bold</b>.", "", "Just text, <b>bold</b>."},
		{"tag later is text", "Use <think> tags </think> like this", "", "Use <think> tags </think> like this"},
		{"unclosed", "<think>still going", "still going", ""},
		{"lookalike close", "<think>a </thin b</think>c", "a </thin b", "c"},
		{"prefix only", "<thi", "", "<thi"},
		{"whitespace only", "  \n", "", "  \n"},
		{"multibyte", "<think>ça pense… 思考</think>réponse ✓", "ça pense… 思考", "réponse ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Every way of cutting the input in two, and byte by byte.
			for cut := 0; cut <= len(tt.in); cut++ {
				r, x := splitAll([]string{tt.in[:cut], tt.in[cut:]})
				if r != tt.reasoning || x != tt.text {
					t.Fatalf("cut at %d: reasoning %q text %q, want %q %q", cut, r, x, tt.reasoning, tt.text)
				}
			}
			var bytes []string
			for i := range len(tt.in) {
				bytes = append(bytes, tt.in[i:i+1])
			}
			if r, x := splitAll(bytes); r != tt.reasoning || x != tt.text {
				t.Fatalf("byte by byte: reasoning %q text %q, want %q %q", r, x, tt.reasoning, tt.text)
			}
		})
	}
}
