package scripted

import (
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
)

// TestDemoTour: offered the coding tools, the demo script reads, then runs the script,
// then says what happened (a denial included); without tools it still echoes.
func TestDemoTour(t *testing.T) {
	t.Parallel()
	tools := []llm.ToolSpec{{Name: "read_files"}, {Name: "run_command"}}
	user := llm.Message{Role: llm.RoleUser, Content: "show me"}
	step := func(msgs ...llm.Message) Reply {
		return demoTour(llm.Request{Tools: tools, Messages: append([]llm.Message{{Role: llm.RoleSystem}, user}, msgs...)})
	}
	if r := step(); len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "read_files" || string(r.ToolCalls[0].Arguments) != demoReadArgs {
		t.Fatalf("first step: %+v", r)
	}
	read := llm.Message{Role: llm.RoleTool, Content: DemoFiles["README.md"]}
	if r := step(llm.Message{Role: llm.RoleAssistant}, read); len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "run_command" || string(r.ToolCalls[0].Arguments) != demoRunArgs {
		t.Fatalf("second step: %+v", r)
	}
	ran := llm.Message{Role: llm.RoleTool, Content: "Hello from the demo workspace\nfiles here: 2\n[exit 0 · 10ms]"}
	if r := step(llm.Message{Role: llm.RoleAssistant}, read, llm.Message{Role: llm.RoleAssistant}, ran); len(r.ToolCalls) != 0 ||
		!strings.Contains(r.Text, "It printed:\n\n```\nHello from the demo workspace\nfiles here: 2\n```") {
		t.Fatalf("after the command: %+v", r)
	}
	// The tour also runs on the command line (tofu dev fake-model, tofu run), where there is no
	// Stop demo button to point at.
	if r := step(llm.Message{Role: llm.RoleAssistant}, read, llm.Message{Role: llm.RoleAssistant}, ran); strings.Contains(r.Text, "Stop demo") || !strings.Contains(r.Text, "ollama pull") {
		t.Fatalf("the closing words: %q", r.Text)
	}
	denied := llm.Message{Role: llm.RoleTool, Content: "The user denied this call (sh hello.sh). Do not retry it."}
	if r := step(llm.Message{Role: llm.RoleAssistant}, read, llm.Message{Role: llm.RoleAssistant}, denied); !strings.Contains(r.Text, "You said no") {
		t.Fatalf("after a denial: %+v", r)
	}
	// A later message starts the tour again (only the results since it count).
	if r := step(llm.Message{Role: llm.RoleAssistant}, read, ran, llm.Message{Role: llm.RoleAssistant, Content: "done"}, llm.Message{Role: llm.RoleUser, Content: "again"}); len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "read_files" {
		t.Fatalf("a new message: %+v", r)
	}
	if offersTools(llm.Request{Tools: tools[:1]}, "read_files", "run_command") {
		t.Fatal("a request without run_command gets the tour")
	}
}
