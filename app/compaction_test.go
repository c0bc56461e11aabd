package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

func TestCompactionInAnAgentSessionAndUndo(t *testing.T) {
	t.Parallel()
	f, id, _ := agentFixture(t)
	f.model.SetModels(scripted.DemoModel(), scripted.Model{Name: "cheap:latest", ContextLength: 8192})
	isSummary := func(r llm.Request) bool {
		return len(r.Messages) > 0 && r.Messages[0].Content == compact.SummaryPrompt
	}
	f.model.On(isSummary).Reply(scripted.Reply{Text: "1. Primary Request\nSUMMARY-TEXT"})
	f.model.OnUser("slow").Reply(scripted.Reply{Text: scripted.LongText(200), Hold: make(chan struct{})})
	set, _ := f.app.Settings.Get()
	set.Models.Cheap = "cheap"
	if _, err := f.app.Settings.Update(set); err != nil {
		t.Fatal(err)
	}
	// A long history, then a question: the 8k window of the demo model puts it over the
	// threshold.
	for i := range 5 {
		f.store.Append(id, store.EventUser, store.UserMessage{Text: fmt.Sprintf("old question %d", i)})
		f.store.Append(id, store.EventAssistant, store.AssistantMessage{Text: fmt.Sprintf("OLD-%d ", i) + strings.Repeat("lorem ipsum dolor ", 300)})
	}
	if err := f.app.Chat.Send(id, "what now?", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 1)
	var c compact.Compaction
	for _, ev := range f.events(t, id) {
		if ev.Type == store.EventCompaction {
			ev.Decode(&c)
		}
	}
	// The window came from the model list; the cheap model of the settings wrote the summary.
	if c.ID == "" || c.Trigger != "auto" || c.ThresholdTokens != compact.Threshold(8192, compact.Defaults().L2) || !strings.HasPrefix(c.Model, "cheap") {
		t.Fatalf("compaction = %+v (%s)", c, types(f.events(t, id)))
	}
	chats := f.model.Chats()
	if last := chats[len(chats)-1].Request; strings.Contains(last.Messages[1].Content, "OLD-0") || !strings.Contains(last.Messages[1].Content, "SUMMARY-TEXT") {
		t.Fatalf("the request after the summary: %.300q", last.Messages[1].Content)
	}

	// Undo is refused while a turn runs…
	if err := f.app.Chat.Send(id, "slow one", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Chat.UndoCompaction(id, c.ID); !errors.Is(err, ErrBusy) {
		t.Fatalf("undo while running: %v", err)
	}
	f.app.Chat.Stop(id)
	f.waitEnded(t, id, 2)
	// …and for what the log does not hold; then it is recorded, once.
	if err := f.app.Chat.UndoCompaction(id, "rnope"); err == nil {
		t.Fatal("an unknown compaction was undone")
	}
	if err := f.app.Chat.UndoCompaction(id, c.ID); err != nil {
		t.Fatal(err)
	}
	evs := f.events(t, id)
	var u store.CompactionUndo
	if last := evs[len(evs)-1]; last.Type != store.EventCompactionUndo || last.Decode(&u) != nil || u.ID != c.ID {
		t.Fatalf("last event: %s", types(evs))
	}
	if err := f.app.Chat.UndoCompaction(id, c.ID); err == nil {
		t.Fatal("undone twice")
	}
}
