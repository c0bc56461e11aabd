package cli

import (
	"encoding/json"
	"testing"

	"github.com/tofu-research/tofu/backend/history"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// TestHistorySearchEndToEnd drives the sidebar's history search in headless Chromium against
// `tofu serve` (frontend/e2e/history.e2e.mjs): Ctrl+K, a Chinese query, an identifier, the
// jump to the message. The conversations are indexed by an earlier run: the served Tofu opens
// the index kept in Badger, reading no log again (checked on the next open).
func TestHistorySearchEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := scripted.New(t, scripted.DemoModel())
	isolate(t, model.URL)
	dir := t.TempDir()
	first, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	x := history.New(first)
	record := func(title string, msgs ...any) {
		info, err := first.CreateSession(title)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			typ := store.EventUser
			if _, ok := m.(store.AssistantMessage); ok {
				typ = store.EventAssistant
			}
			if _, err := first.Append(info.ID, typ, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	record("Badger value log growing",
		store.UserMessage{Text: "Why does the Badger value log keep growing after deletes?"},
		store.AssistantMessage{Text: "Deleted keys stay in the value log until garbage collection rewrites the file. Call RunValueLogGC(0.5) periodically.",
			ToolCalls: []llm.ToolCall{{ID: "1", Name: "grep", Arguments: json.RawMessage(`{"pattern":"RunValueLogGC"}`)}}})
	record("数据库压缩的配置", store.UserMessage{Text: "请解释一下数据库压缩的原理"})
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	x.Close()
	first.Close()

	st, url, stop := serveE2EStore(t, root, dir) // the restart
	runBrowser(t, root, url, "history.e2e.mjs", "history-e2e.png",
		"TOFU_E2E_SHOT_HITS="+shotPath(root, "history-e2e-hits.png"))
	stop()
	x = history.New(st)
	defer x.Close()
	if _, err := x.Search("x", 1); err != nil {
		t.Fatal(err)
	}
	if s := x.Stats(); s.Rebuilds != 0 || s.Replayed != 0 {
		t.Fatalf("the index was not kept across the restarts: %+v", s)
	}
}
