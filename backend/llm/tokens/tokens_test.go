package tokens

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tofu-research/tofu/backend/shareddata"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/ollama"
)

func TestCountMatchesVectors(t *testing.T) {
	t.Parallel()
	path := shareddata.Require(t, "tokenizer", "test_vectors.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		O200k []struct {
			Text string `json:"text"`
			IDs  []uint `json:"ids"`
		} `json:"o200k_base"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.O200k) == 0 {
		t.Fatal("no o200k_base vectors in " + path)
	}
	for _, v := range vectors.O200k {
		if got := Count(v.Text); got != len(v.IDs) {
			t.Errorf("Count(%q) = %d, want %d", v.Text, got, len(v.IDs))
		}
		ids, _, err := o200k().Encode(v.Text)
		if err != nil || !slices.Equal(ids, v.IDs) {
			t.Errorf("Encode(%q) = %v, %v; want %v", v.Text, ids, err, v.IDs)
		}
	}
}

func TestCountEdgeCases(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		text string
		want int
	}{
		"empty":        {"", 0},
		"one word":     {"hello", 1},
		"invalid utf8": {"\xff", 1},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := Count(tc.text); got != tc.want {
				t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
			}
		})
	}
}

func TestCountConcurrent(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("We know what we are, but know not what we may be. ", 20)
	want := Count(text)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if got := Count(text); got != want {
					t.Errorf("concurrent Count = %d, want %d", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCountRequest(t *testing.T) {
	t.Parallel()
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are Tofu."},
			{Role: llm.RoleUser, Content: "hello world", Images: [][]byte{{1}}},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "search", Arguments: json.RawMessage(`{"q":"tofu"}`)}}},
			{Role: llm.RoleTool, ToolName: "search", Content: "3 results"},
		},
		Tools: []llm.ToolSpec{{Name: "search", Description: "Search the web.", Parameters: json.RawMessage(`{"type":"object"}`)}},
	}
	want := PerReply +
		4*PerMessage + Count("system") + Count("user") + Count("assistant") + Count("tool") +
		Count("You are Tofu.") + Count("hello world") + PerImage +
		PerToolCall + Count("search") + Count(`{"q":"tofu"}`) +
		Count("search") + Count("3 results") +
		ToolsHeader + PerTool + Count("search") + Count("Search the web.") + Count(`{"type":"object"}`)
	if got := CountRequest(req); got != want {
		t.Errorf("CountRequest = %d, want %d", got, want)
	}
	if got := CountRequest(llm.Request{}); got != PerReply {
		t.Errorf("CountRequest(empty) = %d, want %d", got, PerReply)
	}
	if est := Estimator(req); est <= want || est > want+want/10+1 {
		t.Errorf("Estimator = %d, want within (%d, %d]", est, want, want+want/10+1)
	}
}

// The estimator plugs into the Ollama provider as is.
var _ ollama.TokenEstimator = Estimator

func BenchmarkCount(b *testing.B) {
	// English prose and Go code, about 4.5 KB: a typical chat message with a snippet.
	prose := strings.Repeat("We know what we are, but know not what we may be. The tokenizer splits text into pieces. ", 25)
	code := strings.Repeat("func (r *Router) Stream(ctx context.Context, req llm.Request) llm.Stream {\n\treturn nil\n}\n", 25)
	text := prose + code
	Count(text) // build the vocabulary outside the timing
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = Count(text)
	}
	b.ReportMetric(float64(n), "tokens/op")
}
