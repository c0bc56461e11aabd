package scripted

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// responsesBody is a Responses request as Codex sends it: instructions, a developer message, a
// user message, an earlier function call and custom tool call with their outputs, and a
// function tool beside a custom one.
const responsesBody = `{"model":"m","instructions":"be brief","stream":%s,"reasoning":{"effort":"low"},
"input":[
 {"type":"message","role":"developer","content":[{"type":"input_text","text":"sandbox: workspace"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]},
 {"type":"reasoning","summary":[]},
 {"type":"function_call","call_id":"call_a","name":"read_file","arguments":"{\"path\":\"a.go\"}"},
 {"type":"custom_tool_call","call_id":"call_b","name":"apply_patch","input":"*** Begin Patch\n*** End Patch\n"},
 {"type":"function_call_output","call_id":"call_a","output":"package a"},
 {"type":"custom_tool_call_output","call_id":"call_b","output":[{"type":"input_text","text":"Success."}]},
 {"type":"message","role":"user","content":"now test it"}],
"tools":[{"type":"function","name":"read_file","description":"read","parameters":{"type":"object"}},
 {"type":"custom","name":"apply_patch","description":"patch","format":{"type":"grammar"}},
 {"type":"web_search"}]}`

func TestResponsesRequestDecoded(t *testing.T) {
	t.Parallel()
	srv := New(t, Model{Name: "m", Capabilities: []llm.Capability{llm.CapTools}})
	srv.Default(Reply{Text: "ok"})
	resp, err := http.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(strings.Replace(responsesBody, "%s", "false", 1)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	c := srv.Chats()[0]
	r := c.Request
	if c.Format != "responses" || c.Stream || !r.Think || len(r.Tools) != 2 || r.Tools[1].Name != "apply_patch" {
		t.Fatalf("call: %s %v %+v", c.Format, c.Stream, r)
	}
	want := []struct {
		role    llm.Role
		content string
		calls   int
		callID  string
	}{
		{llm.RoleSystem, "be brief", 0, ""},
		{llm.RoleSystem, "sandbox: workspace", 0, ""},
		{llm.RoleUser, "fix it", 0, ""},
		{llm.RoleAssistant, "", 2, ""},
		{llm.RoleTool, "package a", 0, "call_a"},
		{llm.RoleTool, "Success.", 0, "call_b"},
		{llm.RoleUser, "now test it", 0, ""},
	}
	if len(r.Messages) != len(want) {
		t.Fatalf("messages: %+v", r.Messages)
	}
	for i, w := range want {
		m := r.Messages[i]
		if m.Role != w.role || m.Content != w.content || len(m.ToolCalls) != w.calls || m.ToolCallID != w.callID {
			t.Errorf("message %d: %+v, want %+v", i, m, w)
		}
	}
	calls := r.Messages[3].ToolCalls
	if calls[0].ID != "call_a" || string(calls[0].Arguments) != `{"path":"a.go"}` || calls[1].Name != "apply_patch" || !strings.HasPrefix(string(calls[1].Arguments), `"*** Begin Patch`) {
		t.Errorf("calls: %+v", calls)
	}
}

// sseEvent is one event of a streamed Responses answer.
type sseEvent struct {
	name string
	data map[string]any
}

func readSSE(t *testing.T, body io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var name string
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data of %s: %v", name, err)
			}
			if d["type"] != name {
				t.Fatalf("event %s carries type %v", name, d["type"])
			}
			out = append(out, sseEvent{name, d})
		}
	}
	return out
}

// TestResponsesStream checks the streamed events Codex reads: the response created, each
// output item added and done, text and argument deltas that add up to the items, a custom tool
// call for a tool offered as custom, and usage on response.completed.
func TestResponsesStream(t *testing.T) {
	t.Parallel()
	srv := New(t, Model{Name: "m", Capabilities: []llm.Capability{llm.CapTools}})
	srv.Default(Reply{Reasoning: "think first", Text: "Patching now.", PromptTokens: 40, OutputTokens: 9, ToolCalls: []llm.ToolCall{
		{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"b.go"}`)},
		{ID: "call_2", Name: "apply_patch", Arguments: json.RawMessage(`"*** Begin Patch\n*** Add File: x\n+x\n*** End Patch\n"`)},
	}})
	resp, err := http.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(strings.Replace(responsesBody, "%s", "true", 1)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := readSSE(t, resp.Body)
	if len(events) < 2 || events[0].name != "response.created" || events[len(events)-1].name != "response.completed" {
		t.Fatalf("events: %+v", events)
	}
	var text, reasoning string
	args := map[string]string{} // item id -> arguments or input from deltas
	var done []map[string]any
	for i, ev := range events {
		if int(ev.data["sequence_number"].(float64)) != i {
			t.Errorf("event %d has sequence_number %v", i, ev.data["sequence_number"])
		}
		switch ev.name {
		case "response.output_text.delta":
			text += ev.data["delta"].(string)
		case "response.reasoning_summary_text.delta":
			reasoning += ev.data["delta"].(string)
		case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			args[ev.data["item_id"].(string)] += ev.data["delta"].(string)
		case "response.output_item.done":
			done = append(done, ev.data["item"].(map[string]any))
		}
	}
	if text != "Patching now." || reasoning != "think first" || len(done) != 4 {
		t.Fatalf("text %q reasoning %q items %+v", text, reasoning, done)
	}
	kinds := []string{"reasoning", "message", "function_call", "custom_tool_call"}
	for i, item := range done {
		if item["type"] != kinds[i] {
			t.Errorf("item %d is %v, want %s", i, item["type"], kinds[i])
		}
	}
	if done[2]["call_id"] != "call_1" || done[2]["arguments"] != `{"path":"b.go"}` || args[done[2]["id"].(string)] != `{"path":"b.go"}` {
		t.Errorf("function call: %+v (deltas %q)", done[2], args[done[2]["id"].(string)])
	}
	patch := "*** Begin Patch\n*** Add File: x\n+x\n*** End Patch\n"
	if done[3]["call_id"] != "call_2" || done[3]["input"] != patch || args[done[3]["id"].(string)] != patch {
		t.Errorf("custom call: %+v", done[3])
	}
	final := events[len(events)-1].data["response"].(map[string]any)
	usage := final["usage"].(map[string]any)
	if final["status"] != "completed" || usage["input_tokens"] != 40.0 || usage["output_tokens"] != 9.0 || usage["total_tokens"] != 49.0 || len(final["output"].([]any)) != 4 {
		t.Errorf("completed: %+v", final)
	}
}

func TestResponsesNotStreamed(t *testing.T) {
	t.Parallel()
	srv := New(t, Model{Name: "m", Capabilities: []llm.Capability{llm.CapTools}})
	srv.Default(Reply{Text: "All done.", DoneReason: "length"})
	resp, err := http.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","input":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Object            string `json:"object"`
		Status            string `json:"status"`
		IncompleteDetails struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Output []struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"output"`
		Usage struct {
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Object != "response" || out.Status != "incomplete" || out.IncompleteDetails.Reason != "max_output_tokens" || len(out.Output) != 1 ||
		out.Output[0].Role != "assistant" || out.Output[0].Content[0].Type != "output_text" || out.Output[0].Content[0].Text != "All done." || out.Usage.OutputTokens == 0 {
		t.Errorf("response: %+v", out)
	}
	if r := srv.Chats()[0].Request; len(r.Messages) != 1 || r.Messages[0].Role != llm.RoleUser || r.Messages[0].Content != "hi" {
		t.Errorf("a string input: %+v", r.Messages)
	}
}
