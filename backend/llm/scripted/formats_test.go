package scripted

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// chatBody is a minimal streamed chat request in each format.
var chatBody = map[string]struct{ path, body string }{
	"ollama":    {"/api/chat", `{"model":"m","messages":[{"role":"user","content":"go"}]}`},
	"openai":    {"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"go"}]}`},
	"responses": {"/v1/responses", `{"model":"m","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`},
	"anthropic": {"/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"go"}]}`},
}

// final is the event that ends a complete reply in each format.
var final = map[string]string{"ollama": `"done":true`, "openai": "data: [DONE]", "anthropic": "event: message_stop", "responses": "event: response.completed"}

func TestFaultsEveryFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault    Fault
		status   int
		outcome  Outcome
		complete bool   // the final event is sent
		contains string // in the body
	}{
		{"", 200, OutcomeComplete, true, "two"},
		{FaultRateLimit, 429, OutcomeError, false, ""},
		{FaultServerError, 500, OutcomeError, false, ""},
		{FaultOverloaded, 529, OutcomeError, false, "verloaded"},
		{FaultReset, 200, OutcomeDied, false, ""},
		{FaultCut, 200, OutcomeComplete, false, "one"},
		{FaultUnknownTool, 200, OutcomeComplete, true, UnknownToolName},
		{FaultToolAsText, 200, OutcomeComplete, true, "tool_call"},
		{FaultBadToolJSON, 200, OutcomeComplete, true, "read_file"},
		{FaultSlowFirstByte, 200, OutcomeComplete, true, "two"},
	}
	for format, req := range chatBody {
		for _, tt := range tests {
			t.Run(format+" "+string(tt.fault), func(t *testing.T) {
				t.Parallel()
				srv := New(t, Model{Name: "m", Capabilities: []llm.Capability{llm.CapTools}})
				srv.Default(Reply{Text: "one two", Fault: tt.fault, After: 1, Delay: 1})
				resp, err := http.Post(srv.URL+req.path, "application/json", strings.NewReader(req.body))
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body := string(b)
				if resp.StatusCode != tt.status || strings.Contains(body, final[format]) != tt.complete || !strings.Contains(body, tt.contains) {
					t.Errorf("%d %s", resp.StatusCode, body)
				}
				cs, _ := srv.Wait(t.Context(), func(cs []Call) bool { return len(cs) == 1 && cs[0].Outcome != OutcomePending })
				if cs[0].Outcome != tt.outcome || cs[0].Format != format {
					t.Errorf("call %s outcome %s, want %s", cs[0].Format, cs[0].Outcome, tt.outcome)
				}
			})
		}
	}
}
