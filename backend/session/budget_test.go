package session

import (
	"context"

	"github.com/tofu-research/tofu/backend/browser"
	"os"
	"path/filepath"
	"testing"

	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/llm/tokens"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/browse"
	"github.com/tofu-research/tofu/backend/tools/webtools"
	"github.com/tofu-research/tofu/backend/web"
)

// FirstRequestBudget is the most o200k tokens the first request of an agent session may cost
// before the model says a word: system prompt, every default tool spec (ask_human included,
// as in the window), the environment block and a one-word message. Every request repeats
// it, and a small local model reads it before each answer. Later features share this budget.
const FirstRequestBudget = 1500

// TestFirstRequestBudget measures the real first request, built by the turn runner and
// received by the scripted model, in a git workspace with an AGENTS.md-free tree, with the
// browser's tools (deferred: only tool_search's line names them) and without.
func TestFirstRequestBudget(t *testing.T) {
	t.Parallel()
	withBrowser := func(reg *tools.Registry, spec Spec) (func(), error) {
		// The browser never starts: the tools only describe themselves here.
		m := browser.New(browser.Options{ProfileDir: filepath.Join(t.TempDir(), "profile")})
		return m.Close, browse.Add(reg, browse.Options{Browser: m, Session: spec.Session})
	}
	// Web access on: web_search and fetch_url are deferred beside the browser's tools.
	withWeb := func(reg *tools.Registry, _ Spec) (func(), error) {
		f := &web.Fetcher{}
		return nil, webtools.Add(reg, f, &web.Searcher{Provider: web.DuckDuckGo{}, Fetcher: f})
	}
	for _, c := range []struct {
		name     string
		families []ToolFamily
	}{{"browser off", nil}, {"browser on", []ToolFamily{withBrowser}}, {"web on", []ToolFamily{withBrowser, withWeb}}} {
		t.Run(c.name, func(t *testing.T) { firstRequestBudget(t, c.families...) })
	}
}

func firstRequestBudget(t *testing.T, families ...ToolFamily) {
	f := newFixture(t, families...)
	f.runner.o.Memory = memory.NewStore(t.TempDir()) // as the app wires it: tools deferred, prompt line
	f.runner.o.History = history.New(f.st)           // conversation tools, deferred
	t.Cleanup(f.runner.o.History.Close)
	gitRepo(t, f.ws)
	if err := os.WriteFile(filepath.Join(f.ws, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.model.Default(scripted.Reply{Text: "hi"})
	id := f.session(t, f.ws, "hello")
	if _, err := f.runner.Run(context.Background(), Request{Session: id, Questions: true}); err != nil {
		t.Fatal(err)
	}
	req := *f.model.Chats()[0].Request
	total := tokens.CountRequest(req)
	system := tokens.CountRequest(llm.Request{Messages: req.Messages[:1]}) - tokens.PerReply
	tools := tokens.CountRequest(llm.Request{Tools: req.Tools}) - tokens.PerReply
	user := tokens.CountRequest(llm.Request{Messages: req.Messages[1:]}) - tokens.PerReply
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	t.Logf("first request: %d o200k tokens: system %d, %d tools %d, first message (with environment) %d; tools %v",
		total, system, len(req.Tools), tools, user, names)
	for _, s := range req.Tools {
		if s.Name == "tool_search" {
			t.Logf("tool_search: %s", s.Description)
		}
	}
	if total > FirstRequestBudget {
		t.Fatalf("the first request costs %d tokens; the budget is %d", total, FirstRequestBudget)
	}
	if evs, _ := f.st.Events(id); len(evs) < 2 || evs[1].Type != store.EventEnvironment {
		t.Fatal("no environment was recorded")
	}
}
