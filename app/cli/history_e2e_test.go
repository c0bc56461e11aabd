package cli

import (
	"encoding/json"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/store"
)

// TestHistorySearchEndToEnd drives the sidebar's history search in headless Chromium against
// `tofu serve` (frontend/e2e/history.e2e.mjs): Ctrl+K, a Chinese query, an identifier, the
// jump to the message.
func TestHistorySearchEndToEnd(t *testing.T) {
	root := e2eRoot(t)
	model := llmtest.New(t, llmtest.DemoModel())
	isolate(t, model.URL)
	st, url, stop := serveE2E(t, root)
	defer stop()
	record := func(title string, msgs ...any) {
		info, err := st.CreateSession(title)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			typ := store.EventUser
			if _, ok := m.(store.AssistantMessage); ok {
				typ = store.EventAssistant
			}
			if _, err := st.Append(info.ID, typ, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	record("Badger value log growing",
		store.UserMessage{Text: "Why does the Badger value log keep growing after deletes?"},
		store.AssistantMessage{Text: "Deleted keys stay in the value log until garbage collection rewrites the file. Call RunValueLogGC(0.5) periodically.",
			ToolCalls: []llm.ToolCall{{ID: "1", Name: "grep", Arguments: json.RawMessage(`{"pattern":"RunValueLogGC"}`)}}})
	record("数据库压缩的配置", store.UserMessage{Text: "请解释一下数据库压缩的原理"})
	runBrowser(t, root, url, "history.e2e.mjs", "history-e2e.png")
}
