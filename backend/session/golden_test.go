package session

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/testtools"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/webtools"
	"github.com/tofu-research/tofu/backend/web"
)

// TestModelFacingTextIsGolden keeps what the model reads in files under testdata/golden, so that
// a change to it shows in review as a diff of plain text (`go test -run TestModelFacingText
// -update` rewrites them): the system prompt and every tool spec of an agent's first request,
// with web access on (its tools deferred behind tool_search), what tool_search answers, and the
// reminder that an environment change adds. The environment block itself is left out: it
// describes the machine the test runs on.
func TestModelFacingTextIsGolden(t *testing.T) {
	t.Parallel()
	withWeb := func(reg *tools.Registry, _ Spec) (func(), error) {
		f := &web.Fetcher{}
		return nil, webtools.Add(reg, f, &web.Searcher{Provider: web.DuckDuckGo{}, Fetcher: f})
	}
	f := newFixture(t, withWeb)
	f.runner.o.Memory = memory.NewStore(t.TempDir()) // as the app wires it
	f.runner.o.History = history.New(f.st)
	t.Cleanup(f.runner.o.History.Close)
	gitRepo(t, f.ws)
	if err := os.WriteFile(filepath.Join(f.ws, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.model.On(firstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "tool_search", `{"query":"search the web"}`)}})
	f.model.Default(scripted.Reply{Text: "done"})
	id := f.session(t, f.ws, "hello")
	if _, err := f.runner.Run(context.Background(), Request{Session: id, Questions: true}); err != nil {
		t.Fatal(err)
	}
	chats := f.model.Chats()
	if len(chats) < 2 {
		t.Fatalf("%d model calls, want 2", len(chats))
	}
	first, second := *chats[0].Request, *chats[1].Request
	if first.Messages[0].Role != llm.RoleSystem {
		t.Fatalf("the first message is %s, not the system prompt", first.Messages[0].Role)
	}
	testtools.Golden(t, "system-prompt.txt", first.Messages[0].Content+"\n")
	testtools.Golden(t, "tool-specs.txt", specsText(t, first.Tools))
	var found string
	for _, m := range second.Messages {
		if m.Role == llm.RoleTool && m.ToolName == "tool_search" {
			found = m.Content
		}
	}
	if found == "" {
		t.Fatal("tool_search's result is not in the second request")
	}
	testtools.Golden(t, "tool-search-result.txt", found+"\n")
	testtools.Golden(t, "tool-specs-after-search.txt", specsText(t, second.Tools))

	prev := store.Environment{Date: "2026-12-06", Branch: "main"}
	cur := store.Environment{Date: "2026-12-07", Branch: "fix"}
	changed, ok := environmentReminder(&prev, cur, "")
	if !ok {
		t.Fatal("a branch switch is not an environment change")
	}
	testtools.Golden(t, "environment-change.txt", changed.Text+"\n")
}

// specsText writes tool specs as a reviewer reads them: name, description, indented schema.
func specsText(t *testing.T, specs []llm.ToolSpec) string {
	var b strings.Builder
	for _, s := range specs {
		var schema bytes.Buffer
		if err := json.Indent(&schema, s.Parameters, "", "  "); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		b.WriteString("## " + s.Name + "\n" + s.Description + "\n" + schema.String() + "\n\n")
	}
	return b.String()
}
