package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
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
	f.model.Default(scripted.Reply{Text: "ok"})
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
	// Off for this conversation (Enhance), then off in the settings: no recall even for a
	// matching message.
	if _, err := f.st.UpdateSession(id, func(i *store.SessionInfo) { i.RecallOff = true }); err != nil {
		t.Fatal(err)
	}
	countRecalls := func(text string) int {
		t.Helper()
		if _, err := f.st.Append(id, store.EventUser, store.UserMessage{Text: text}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
			t.Fatal(err)
		}
		evs, _ := f.st.Events(id)
		n := 0
		for _, ev := range evs {
			if ev.Type == store.EventMemoryRecall {
				n++
			}
		}
		return n
	}
	if n := countRecalls("数据库压缩 RunValueLogGC"); n != 1 {
		t.Fatalf("%d recalls with recall off in the conversation", n)
	}
	if _, err := f.st.UpdateSession(id, func(i *store.SessionInfo) { i.RecallOff = false }); err != nil {
		t.Fatal(err)
	}
	f.cfg.MemoryRecallOff = true
	if n := countRecalls("数据库压缩 RunValueLogGC 夜间"); n != 1 {
		t.Fatalf("%d recalls with recall off in the settings", n)
	}
}

// A workspace skill is listed in the system prompt and loaded through the skill tool; a
// workspace without skills gets neither.
func TestSkillsInTheTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := filepath.Join(f.ws, ".tofu", "skills", "release")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: release\ndescription: Cut a release: changelog, tag, notes.\n---\nTag with git tag -s.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.model.On(firstStep).Reply(scripted.Reply{ToolCalls: []llm.ToolCall{toolCall("s1", "skill", `{"name":"release"}`)}})
	f.model.Default(scripted.Reply{Text: "done"})
	id := f.session(t, f.ws, "cut a release")
	if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
		t.Fatal(err)
	}
	req := f.model.Chats()[0].Request
	if sys := req.Messages[0].Content; !strings.Contains(sys, "- release: Cut a release: changelog, tag, notes.") {
		t.Fatalf("system prompt:\n%s", sys)
	}
	results := f.results(t, id)
	if len(results) != 1 || !strings.Contains(results[0].Text, "Tag with git tag -s.") {
		t.Fatalf("skill result: %+v", results)
	}
	empty := newFixture(t)
	empty.model.Default(scripted.Reply{Text: "hi"})
	if _, err := empty.runner.Run(context.Background(), Request{Session: empty.session(t, empty.ws, "hi")}); err != nil {
		t.Fatal(err)
	}
	r := empty.model.Chats()[0].Request
	for _, tool := range r.Tools {
		if tool.Name == "skill" {
			t.Fatal("the skill tool is offered without skills")
		}
	}
	if strings.Contains(r.Messages[0].Content, "Skills") {
		t.Fatal("skills in the prompt without skills")
	}
}

// With a cheap model set, recall asks it to pick among loose BM25 candidates: the record it
// names is recalled, one it leaves out is not, and the event names the method and the model.
func TestMemoryRerankedByTheCheapModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mem := memory.NewStore(t.TempDir())
	f.runner.o.Memory = mem
	f.cfg.Models.Cheap = scripted.DemoModelName
	if _, err := mem.Create(f.ws, memory.Record{Name: "Release checklist", Body: "Tag the release after the changelog is written."}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []memory.Record{
		{Name: "Release party", Body: "Cake after every release."},
		{Name: "Test runner", Body: "Run the tests through build/offline.sh."},
		{Name: "Commit style", Body: "One sentence saying what changed."},
		{Name: "Go toolchain", Body: "The module needs Go 1.26."},
	} {
		if _, err := mem.Create(f.ws, r); err != nil {
			t.Fatal(err)
		}
	}
	f.model.On(func(r llm.Request) bool {
		return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "You pick memory records")
	}).Reply(scripted.Reply{Text: "project:release-checklist\n"})
	f.model.Default(scripted.Reply{Text: "ok"})
	id := f.session(t, f.ws, "how do we cut a release?")
	if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
		t.Fatal(err)
	}
	evs, _ := f.st.Events(id)
	var rec *store.MemoryRecall
	for _, ev := range evs {
		if ev.Type == store.EventMemoryRecall {
			rec = new(store.MemoryRecall)
			if err := ev.Decode(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rec == nil || rec.Method != store.RecallReranked || rec.Model != scripted.DemoModelName || len(rec.Records) != 1 || rec.Records[0].ID != "project:release-checklist" {
		t.Fatalf("recall: %+v", rec)
	}
	if strings.Contains(rec.Text, "Cake") {
		t.Fatalf("the record the model left out was recalled: %s", rec.Text)
	}
	// The rerank call is logged like every model call: a usage event marked as the rerank's,
	// before the recall it chose, beside the turn's own call.
	var usages []llm.Usage
	for _, ev := range evs {
		var u llm.Usage
		if ev.Type == store.EventUsage && ev.Decode(&u) == nil {
			usages = append(usages, u)
		}
	}
	if len(usages) != 2 || usages[0].Purpose != memory.RerankPurpose || usages[0].Model != scripted.DemoModelName ||
		usages[0].LocalInputTokens == 0 || usages[0].LocalOutputTokens == 0 || usages[1].Purpose != "" {
		t.Fatalf("usage events: %+v", usages)
	}
}

// TestSystemPromptNamesOnlyToolsOnOffer: the prompt said "memory_search finds more … with
// memory_create" while both waited behind tool_search, so a model called them and got an
// error. A tool the prompt names is offered, or its sentence says how to get it.
func TestSystemPromptNamesOnlyToolsOnOffer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.runner.o.Memory = memory.NewStore(t.TempDir())
	f.model.Default(scripted.Reply{Text: "ok"})
	id := f.session(t, f.ws, "hello")
	if _, err := f.runner.Run(context.Background(), Request{Session: id}); err != nil {
		t.Fatal(err)
	}
	req := f.model.Chats()[0].Request
	offered := map[string]bool{}
	for _, tool := range req.Tools {
		offered[tool.Name] = true
	}
	sys := req.Messages[0].Content
	named := 0
	for _, sentence := range strings.FieldsFunc(sys, func(r rune) bool { return r == '\n' || r == '.' }) {
		for _, name := range memory.ToolNames {
			if !strings.Contains(sentence, name) || offered[name] {
				continue
			}
			named++
			if !strings.Contains(sentence, "tool_search") || !offered["tool_search"] {
				t.Errorf("the prompt names %s, not offered, without saying how to get it: %q", name, sentence)
			}
		}
	}
	if named == 0 {
		t.Fatalf("the prompt no longer tells of memory:\n%s", sys)
	}
}
