package session

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tofu-research/tofu/backend/browser"
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

// TestToolFamiliesOnAreOffered: a family the user turned on in the Tools menu (the real
// browser family here) is offered from the first request of the next turn, without
// tool_search; the other deferred families still wait. The tool list is then the same on
// every request (the cached prefix changes once, at the switch), and tool_search's
// description is the one a conversation without the switch gets.
func TestToolFamiliesOnAreOffered(t *testing.T) {
	t.Parallel()
	withBrowser := func(reg *tools.Registry, spec Spec) (func(), error) {
		m := browser.New(browser.Options{ProfileDir: filepath.Join(t.TempDir(), "profile")})
		return m.Close, browse.Add(reg, browse.Options{Browser: m, Session: spec.Session})
	}
	withWeb := func(reg *tools.Registry, _ Spec) (func(), error) {
		f := &web.Fetcher{}
		return nil, webtools.Add(reg, f, &web.Searcher{Provider: web.DuckDuckGo{}, Fetcher: f})
	}
	f := newFixture(t, withBrowser, withWeb)
	f.runner.o.Memory = memory.NewStore(t.TempDir())
	f.model.Default(scripted.Reply{Text: "ok"})
	run := func(id, text string) *llm.Request {
		t.Helper()
		if text != "" {
			if _, err := f.st.Append(id, store.EventUser, store.UserMessage{Text: text}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
			t.Fatal(err)
		}
		chats := f.model.Chats()
		return chats[len(chats)-1].Request
	}

	plain := run(f.session(t, f.ws, "hello"), "")
	id := f.session(t, f.ws, "hello")
	before := run(id, "")
	if _, err := f.st.UpdateSession(id, func(i *store.SessionInfo) { i.ToolsOn = []store.ToolFamily{store.FamilyBrowser} }); err != nil {
		t.Fatal(err)
	}
	after := run(id, "go on") // words that ask for no family (asked_test.go)
	again := run(id, "and again")

	names, search := offeredTools(after)
	for _, n := range browse.Names {
		if !slices.Contains(names, n) {
			t.Fatalf("%s not offered with the browser turned on: %v", n, names)
		}
	}
	for _, n := range append(slices.Clone(webtools.Names), memory.ToolNames...) {
		if slices.Contains(names, n) {
			t.Fatalf("%s offered although its family was not turned on", n)
		}
	}
	if _, plainSearch := offeredTools(plain); search != plainSearch {
		t.Fatalf("tool_search's description changed:\n%s\n%s", search, plainSearch)
	}
	spec := func(r *llm.Request) string {
		b, _ := json.Marshal(r.Tools)
		return string(b)
	}
	if spec(after) != spec(again) {
		t.Fatal("the tool list changed again after the switch")
	}
	if spec(before) != spec(plain) {
		t.Fatal("before the switch, the conversation was offered other tools than a default one")
	}
	t.Logf("tools: %d o200k tokens by default, %d with the browser turned on",
		tokens.CountRequest(llm.Request{Tools: before.Tools}), tokens.CountRequest(llm.Request{Tools: after.Tools}))
}

// TestDeferredFamiliesOfTheRealTools: what the Tools menu says of a family (its tools wait for
// tool_search unless turned on) matches the real tools as a turn is equipped.
func TestDeferredFamiliesOfTheRealTools(t *testing.T) {
	t.Parallel()
	m := browser.New(browser.Options{ProfileDir: filepath.Join(t.TempDir(), "profile")})
	defer m.Close()
	f := newFixture(t,
		func(reg *tools.Registry, spec Spec) (func(), error) {
			return nil, browse.Add(reg, browse.Options{Browser: m, Session: spec.Session})
		},
		func(reg *tools.Registry, _ Spec) (func(), error) {
			w := &web.Fetcher{}
			return nil, webtools.Add(reg, w, &web.Searcher{Provider: web.DuckDuckGo{}, Fetcher: w})
		})
	f.runner.o.Memory = memory.NewStore(t.TempDir())
	f.model.Default(scripted.Reply{Text: "ok"})
	if _, err := f.runner.Run(context.Background(), Request{Session: f.session(t, f.ws, "hi")}); err != nil {
		t.Fatal(err)
	}
	offered, _ := offeredTools(f.model.Chats()[0].Request)
	seen := map[store.ToolFamily]bool{}
	for _, n := range offered {
		fam := FamilyOf(tools.NewRegistry(), n)
		if fam != "" && DeferredFamily(fam) {
			t.Errorf("%s (%s) is offered at once, but the menu says its family waits for tool_search", n, fam)
		}
		seen[fam] = true
	}
	if !seen[store.FamilyCoding] || DeferredFamily(store.FamilyCoding) {
		t.Fatal("coding is not offered at once")
	}
}
