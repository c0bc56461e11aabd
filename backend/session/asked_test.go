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
	"github.com/tofu-research/tofu/backend/store"
	"github.com/tofu-research/tofu/backend/tools"
	"github.com/tofu-research/tofu/backend/tools/browse"
)

// TestBrowserOfferedWhenTheMessageAsks: a task whose first line held http://127.0.0.1:8771/
// spent a call on tool_search to get the browser. A message with an address or "open the
// page" is offered the browser from the first request; the next turns keep the same tool list
// (the cached prefix); a message that asks for no page is not offered it.
func TestBrowserOfferedWhenTheMessageAsks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(reg *tools.Registry, spec Spec) (func(), error) {
		m := browser.New(browser.Options{ProfileDir: filepath.Join(t.TempDir(), "profile")})
		return m.Close, browse.Add(reg, browse.Options{Browser: m, Session: spec.Session})
	})
	f.model.Default(scripted.Reply{Text: "ok"})
	last := func() *llm.Request {
		chats := f.model.Chats()
		return chats[len(chats)-1].Request
	}
	run := func(id string) *llm.Request {
		t.Helper()
		if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
			t.Fatal(err)
		}
		return last()
	}
	hasBrowser := func(r *llm.Request) bool {
		names, _ := offeredTools(r)
		for _, n := range browse.Names {
			if !slices.Contains(names, n) {
				return false
			}
		}
		return true
	}
	for text, want := range map[string]bool{
		"Add a todo on http://127.0.0.1:8771/ and check the counter": true,
		"the app runs on localhost:3000, why is the list empty?":     true,
		"Open the page and delete the second todo":                   true,
		"Fix the failing test in page_size.py":                       false,
		"Which URL does the client call? See src/api.py":             false,
	} {
		id := f.session(t, f.ws, text)
		first := run(id)
		if hasBrowser(first) != want {
			names, _ := offeredTools(first)
			t.Errorf("%q: browser offered %v, want %v (%v)", text, !want, want, names)
			continue
		}
		if !want {
			continue
		}
		if _, err := f.st.Append(id, store.EventUser, store.UserMessage{Text: "thanks"}); err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(first.Tools)
		b, _ := json.Marshal(run(id).Tools)
		if string(a) != string(b) {
			t.Errorf("%q: the tool list changed on the next turn", text)
		}
	}
}
