package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestCommandsEndToEnd drives the composer's commands, @file, the plan, the languages and the
// theme in headless Chromium on `tofu serve` (frontend/e2e/commands-shot.mjs; screenshots in
// build/test-shots/commands/), then checks the log: the plan is todo_write's result, and
// /compact's summary was asked with the user's instruction. Runs when TOFU_E2E=1.
func TestCommandsEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	ws := t.TempDir()
	for rel, text := range map[string]string{
		".gitignore": "build/\n*.log\n", "src/parser.go": "package src\n", "src/parser_test.go": "package src\n",
		"src/lexer.go": "package src\n", "docs/parsing.md": "# parsing\n", "build/parser.o": "x", "parse.log": "x",
	} {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := scripted.New(t, scripted.DemoModel())
	summary := func(r llm.Request) bool { return len(r.Messages) > 0 && r.Messages[0].Content == compact.SummaryPrompt }
	model.On(summary).Reply(scripted.Reply{Text: "1. Primary Request\nFix the config parser in src/parser.go."})
	model.DefaultFunc(func(r llm.Request) scripted.Reply {
		last := r.Messages[len(r.Messages)-1]
		switch {
		case last.Role == llm.RoleTool:
			return scripted.Reply{Text: "The plan is in place: next, the quoting bug in `src/parser.go`."}
		case strings.Contains(scripted.LastUser(r), "plan the fix"):
			return scripted.Reply{ToolCalls: []llm.ToolCall{{ID: "p1", Name: "todo_write", Arguments: []byte(`{"todos":[` +
				`{"content":"Reproduce the failing config test","status":"done"},` +
				`{"content":"Fix the quoting bug in src/parser.go","status":"in_progress"},` +
				`{"content":"Add a regression test for quoted keys","status":"pending"},` +
				`{"content":"Run the whole test suite","status":"pending"}]}`)}}}
		}
		return scripted.Reply{Text: "The code is in `src/`: `parser.go` reads the config, `lexer.go` splits it into tokens."}
	})
	isolate(t, model.URL)
	st, url, stop := serveE2E(t, root)
	runBrowser(t, root, url, "commands-shot.mjs", "commands/plan.png", "TOFU_E2E_WORKSPACE="+ws)
	stop()

	sessions, err := st.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	var c compact.Compaction
	for _, s := range sessions {
		evs, _ := st.Events(s.ID)
		for _, ev := range evs {
			if ev.Type == store.EventCompaction {
				ev.Decode(&c)
			}
		}
	}
	if c.Trigger != compact.TriggerManual || c.Instruction != "keep the file names and the plan" {
		t.Fatalf("compaction %+v: want /compact's, with its instruction", c)
	}
	for _, call := range model.Chats() {
		if summary(*call.Request) && !strings.Contains(call.Request.Messages[1].Content, "keep the file names and the plan") {
			t.Fatalf("the summariser was not given the instruction: %.300q", call.Request.Messages[1].Content)
		}
	}
}
