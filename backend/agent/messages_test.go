package agent

import (
	"encoding/json"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/store"
)

func ev(typ store.EventType, v any) store.Event {
	b, _ := json.Marshal(v)
	return store.Event{Type: typ, Data: b}
}

func TestMessagesDropsWhatFollowsLastUser(t *testing.T) {
	t.Parallel()
	msgs := Messages([]store.Event{
		ev(store.EventUser, store.UserMessage{Text: "q1"}),
		ev(store.EventAssistant, store.AssistantMessage{Text: "partial", Interrupted: true}),
		ev(store.EventInterrupted, store.Interruption{Reason: "user"}),
		ev(store.EventUser, store.UserMessage{Text: "q2"}),
		ev(store.EventAssistant, store.AssistantMessage{Text: "half", StopReason: "error"}),
		ev(store.EventError, store.ErrorInfo{Kind: "server"}),
	})
	if len(msgs) != 3 || msgs[1].Content != "partial" || msgs[2].Content != "q2" {
		t.Fatalf("messages = %+v", msgs)
	}
}

func TestEveryToolCallGetsAResult(t *testing.T) {
	t.Parallel()
	calls := []llm.ToolCall{{ID: "a", Name: "read"}, {ID: "b", Name: "write"}}
	log := []store.Event{
		ev(store.EventUser, store.UserMessage{Text: "go"}),
		ev(store.EventAssistant, store.AssistantMessage{ToolCalls: calls}),
		ev(store.EventToolResult, store.ToolResult{CallID: "a", Name: "read", Text: "A"}),
		ev(store.EventInterrupted, store.Interruption{Reason: "user"}),
	}
	if p := Pending(log); len(p) != 1 || p[0].ID != "b" {
		t.Fatalf("pending = %+v", p)
	}
	// The user moved on instead of continuing: b is answered as not run, nothing is pending.
	log = append(log, ev(store.EventUser, store.UserMessage{Text: "never mind"}))
	msgs := Messages(log)
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Role)+":"+m.ToolCallID+":"+m.Content)
	}
	want := []string{"user::go", "assistant::", "tool:a:A", "tool:b:" + notRun, "user::never mind"}
	if len(got) != len(want) {
		t.Fatalf("messages = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("message %d = %q, want %q", i, got[i], want[i])
		}
	}
	if p := Pending(log); len(p) != 0 {
		t.Fatalf("pending after a new message: %+v", p)
	}
}

func TestUsedTools(t *testing.T) {
	t.Parallel()
	log := []store.Event{
		ev(store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{{ID: "a", Name: "read_files"}, {ID: "b", Name: "tool_search"}}}),
		ev(store.EventToolResult, map[string]any{"call_id": "b", "name": "tool_search", "meta": map[string]any{"activated": []string{"job_kill"}}}),
		ev(store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{{ID: "c", Name: "read_files"}}}),
	}
	if got := UsedTools(log); len(got) != 3 || got[0] != "read_files" || got[1] != "tool_search" || got[2] != "job_kill" {
		t.Fatalf("UsedTools = %v", got)
	}
}

// TestEnvironmentRidesOnTheUserMessage: an environment event's text is appended to the user
// message before it, and to nothing else (a tool result, an assistant message).
func TestEnvironmentRidesOnTheUserMessage(t *testing.T) {
	t.Parallel()
	env := func(s string) store.Event { return ev(store.EventEnvironment, store.Environment{Text: s}) }
	msgs := Messages([]store.Event{
		ev(store.EventUser, store.UserMessage{Text: "q1"}),
		env("<system-reminder>\nE1\n</system-reminder>"),
		ev(store.EventAssistant, store.AssistantMessage{ToolCalls: []llm.ToolCall{{ID: "a", Name: "read"}}}),
		ev(store.EventToolResult, store.ToolResult{CallID: "a", Name: "read", Text: "A"}),
		env("stray after a tool result"),
		ev(store.EventUser, store.UserMessage{Text: "q2"}),
		env("<system-reminder>\nE2\n</system-reminder>"),
	})
	want := []string{"q1\n\n<system-reminder>\nE1\n</system-reminder>", "", "A", "q2\n\n<system-reminder>\nE2\n</system-reminder>"}
	if len(msgs) != len(want) {
		t.Fatalf("messages = %+v", msgs)
	}
	for i, w := range want {
		if msgs[i].Content != w {
			t.Errorf("message %d = %q, want %q", i, msgs[i].Content, w)
		}
	}
}

// A reply that printed a tool call as text stays in the conversation, and the correction
// after it is the model's next user message: the model sees what it wrote and why it did not
// run, and a Continue has a message to answer.
func TestCallCorrectionIsAUserMessage(t *testing.T) {
	msgs := Messages([]store.Event{
		ev(store.EventUser, store.UserMessage{Text: "fix it"}),
		ev(store.EventAssistant, store.AssistantMessage{Text: `<tool_call>{"name": "edit_files", "argu`}),
		ev(store.EventCallCorrection, store.CallCorrection{Format: "tool_call", Reason: "its JSON is not valid", Text: "Send it properly.", Attempt: 1, Max: 2}),
	})
	if len(msgs) != 3 || msgs[1].Role != llm.RoleAssistant || msgs[2].Role != llm.RoleUser || msgs[2].Content != "Send it properly." {
		t.Fatalf("messages %+v", msgs)
	}
}

// TestAttachmentsFollowTheUserText: a message's attached resources are read by the model after
// its text, each in a block naming its server and URI, before the environment riding on it.
func TestAttachmentsFollowTheUserText(t *testing.T) {
	t.Parallel()
	msgs := Messages([]store.Event{
		ev(store.EventUser, store.UserMessage{Text: "summarize this", Attachments: []store.Attachment{
			{Kind: store.AttachMCPResource, Server: "everything", URI: "demo://doc.md", Name: "doc.md", MimeType: "text/markdown", Text: "# Doc\nbody"},
		}}),
		ev(store.EventEnvironment, store.Environment{Text: "ENV"}),
	})
	want := "summarize this\n\n<attachment kind=\"mcp_resource\" server=\"everything\" uri=\"demo://doc.md\" name=\"doc.md\" type=\"text/markdown\">\n# Doc\nbody\n</attachment>\n\nENV"
	if len(msgs) != 1 || msgs[0].Content != want {
		t.Fatalf("messages = %q", msgs)
	}
}
