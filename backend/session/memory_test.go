package session

import (
	"context"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm/llmtest"
	"github.com/tofu-research/tofu/backend/memory"
	"github.com/tofu-research/tofu/backend/store"
)

// A relevant record is recalled before the turn: an event in the log, a reminder on the user's
// message in the request (after the environment), the same bytes in the next request; with the
// switch off nothing is recalled; the memory tools wait behind tool_search.
func TestMemoryRecalledIntoTheTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mem := memory.NewStore(t.TempDir())
	f.runner.o.Memory = mem
	if _, err := mem.Create(f.ws, memory.Record{Name: "数据库压缩", Description: "Badger maintenance", Body: "value log 的垃圾回收在夜间运行：调用 RunValueLogGC。"}); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Create(f.ws, memory.Record{Name: "Release steps", Body: "Tag after the changelog."}); err != nil {
		t.Fatal(err)
	}
	f.model.Default(llmtest.Reply{Text: "ok"})
	id := f.session(t, f.ws, "数据库什么时候压缩？")
	if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
		t.Fatal(err)
	}
	evs, _ := f.st.Events(id)
	var recalls []store.MemoryRecall
	for _, ev := range evs {
		if ev.Type == store.EventMemoryRecall {
			var m store.MemoryRecall
			if err := ev.Decode(&m); err != nil {
				t.Fatal(err)
			}
			recalls = append(recalls, m)
		}
	}
	if len(recalls) != 1 || len(recalls[0].Records) != 1 || recalls[0].Records[0].ID != "project:数据库压缩" {
		t.Fatalf("recalls: %+v", recalls)
	}
	req := f.model.Chats()[0].Request
	user := req.Messages[len(req.Messages)-1].Content
	if !strings.HasPrefix(user, "数据库什么时候压缩？\n\n<system-reminder>") || !strings.HasSuffix(user, recalls[0].Text) {
		t.Fatalf("user message in the request:\n%s", user)
	}
	if sys := req.Messages[0].Content; !strings.Contains(sys, "memory_search") {
		t.Fatalf("the system prompt does not tell of memory:\n%s", sys)
	}
	for _, tool := range req.Tools {
		if strings.HasPrefix(tool.Name, "memory_") {
			t.Fatalf("%s offered before tool_search found it", tool.Name)
		}
	}
	// The next turn: the first user message is byte-identical (cached prefix), and a message
	// that matches nothing recalls nothing.
	if _, err := f.st.Append(id, store.EventUser, store.UserMessage{Text: "thanks"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
		t.Fatal(err)
	}
	second := f.model.Chats()[1].Request
	if second.Messages[1].Content != req.Messages[1].Content {
		t.Fatalf("the first user message changed:\n%q\n%q", req.Messages[1].Content, second.Messages[1].Content)
	}
	if last := second.Messages[len(second.Messages)-1].Content; strings.Contains(last, "Memory records") {
		t.Fatalf("recalled for 'thanks': %s", last)
	}
	// Off in the settings: no recall even for a matching message.
	f.cfg.MemoryRecallOff = true
	if _, err := f.st.Append(id, store.EventUser, store.UserMessage{Text: "数据库压缩 RunValueLogGC"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
		t.Fatal(err)
	}
	evs, _ = f.st.Events(id)
	n := 0
	for _, ev := range evs {
		if ev.Type == store.EventMemoryRecall {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d recalls with recall off", n)
	}
}
