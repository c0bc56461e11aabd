package scripted

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/tokens"
)

// TestOllamaNumPredictStopsTheReply: like a real Ollama, num_predict ends the reply at that many
// tokens with done_reason "length", dropping the calls it did not reach; a reply within the
// limit is whole.
func TestOllamaNumPredictStopsTheReply(t *testing.T) {
	t.Parallel()
	srv := New(t, Model{Name: "m:latest", Capabilities: []llm.Capability{llm.CapTools}})
	text := strings.Repeat("Tofu is made from soy milk pressed into blocks. ", 10)
	srv.Default(Reply{Text: text, ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}})

	chat := func(numPredict int) (string, api.ChatResponse) {
		body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": "hi"}},
			"options": map[string]any{"num_predict": numPredict}})
		resp, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got strings.Builder
		var last api.ChatResponse
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var r api.ChatResponse
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%q: %v", sc.Text(), err)
			}
			got.WriteString(r.Message.Content)
			if len(r.Message.ToolCalls) > 0 {
				got.WriteString("<call>")
			}
			last = r
		}
		return got.String(), last
	}

	got, last := chat(7)
	if !last.Done || last.DoneReason != "length" || last.EvalCount != 7 {
		t.Errorf("num_predict 7: done %v, reason %q, eval_count %d", last.Done, last.DoneReason, last.EvalCount)
	}
	if !strings.HasPrefix(text, got) || got == "" || tokens.Count(got) > 7 {
		t.Errorf("num_predict 7 sent %q (%d tokens)", got, tokens.Count(got))
	}
	got, last = chat(1000)
	if last.DoneReason != "stop" || got != text+"<call>" {
		t.Errorf("num_predict 1000: reason %q, %q", last.DoneReason, got)
	}
}
