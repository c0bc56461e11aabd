package relay

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// fixedAnswer answers every request with the same text.
type fixedAnswer string

func (f fixedAnswer) Answer(context.Context, int, llm.Request) (string, error) { return string(f), nil }
func (fixedAnswer) Refuse(int, string, error) error                            { return nil }

// The relayed model reports the prompt a request shares with an earlier one as cached, as a
// provider's prefix cache would bill it (it reported no cached tokens at all): nothing on the
// first request, the earlier conversation on the next, nothing once the tools change.
func TestRelayReportsTheSharedPrefixAsCached(t *testing.T) {
	srv, err := Listen("127.0.0.1:0", "relay", 8192, fixedAnswer("Fine."))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	post := func(tool, messages string) (prompt, cached int) {
		t.Helper()
		body := `{"model": "relay", "messages": ` + messages + `,
			"tools": [{"type": "function", "function": {"name": "` + tool + `", "parameters": {"type": "object"}}}]}`
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
				Details      struct {
					CachedTokens int `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out.Usage.PromptTokens, out.Usage.Details.CachedTokens
	}
	first := `[{"role": "system", "content": "You are a careful assistant who checks every claim twice."},
		{"role": "user", "content": "How many moons has Mars?"}]`
	second := strings.TrimSuffix(first, "]") + `, {"role": "assistant", "content": "Fine."}, {"role": "user", "content": "And Jupiter?"}]`
	p1, c1 := post("grep", first)
	p2, c2 := post("grep", second)
	if c1 != 0 || c2 < p1-5 || c2 >= p2 {
		t.Fatalf("first %d prompt / %d cached, second %d / %d", p1, c1, p2, c2)
	}
	if _, c3 := post("glob", second); c3 != 0 {
		t.Fatalf("other tools, %d cached", c3)
	}
}
