package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tofu-research/tofu/backend/compact"
	"github.com/tofu-research/tofu/backend/llm"
	"github.com/tofu-research/tofu/backend/llm/scripted"
	"github.com/tofu-research/tofu/backend/store"
)

// The composer's /compact: the earlier turns are summarized now, with the user's instruction in
// the summariser's request, and no reply follows.
func TestCompactCommandSummarizesWithTheInstruction(t *testing.T) {
	t.Parallel()
	f, id, _ := agentFixture(t)
	isSummary := func(r llm.Request) bool {
		return len(r.Messages) > 0 && r.Messages[0].Content == compact.SummaryPrompt
	}
	f.model.On(isSummary).Reply(scripted.Reply{Text: "1. Primary Request\nSUMMARY-TEXT"})
	if err := f.app.Chat.Compact(id, "", scripted.DemoModelName); err == nil || !strings.Contains(err.Error(), "nothing to compact") {
		t.Fatalf("an empty conversation: %v", err)
	}
	// One exchange: kept whole, nothing before it; the log says so.
	f.store.Append(id, store.EventUser, store.UserMessage{Text: "old question 0"})
	f.store.Append(id, store.EventAssistant, store.AssistantMessage{Text: "OLD-0 answer"})
	if err := f.app.Chat.Compact(id, "", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 1)
	if evs := f.events(t, id); evs[len(evs)-1].Type != store.EventNotice || !strings.Contains(string(evs[len(evs)-1].Data), "Nothing to compact yet") {
		t.Fatalf("one exchange: %s", types(evs))
	}
	for i := 1; i < 3; i++ {
		f.store.Append(id, store.EventUser, store.UserMessage{Text: fmt.Sprintf("old question %d", i)})
		f.store.Append(id, store.EventAssistant, store.AssistantMessage{Text: fmt.Sprintf("OLD-%d answer", i)})
	}
	before := len(f.model.Chats())
	if err := f.app.Chat.Compact(id, "keep the file names", scripted.DemoModelName); err != nil {
		t.Fatal(err)
	}
	f.waitEnded(t, id, 2)
	chats := f.model.Chats()[before:]
	if len(chats) != 1 || !isSummary(*chats[0].Request) {
		t.Fatalf("%d model calls, want the summariser's alone", len(chats))
	}
	if in := chats[0].Request.Messages[1].Content; !strings.Contains(in, "## The User's Instruction for This Summary\nkeep the file names") ||
		!strings.Contains(in, "OLD-1 answer") || strings.Contains(in, "OLD-2 answer") {
		t.Fatalf("summariser input: %.600q", in)
	}
	var c compact.Compaction
	var notice store.Notice
	for _, ev := range f.events(t, id) {
		switch ev.Type {
		case store.EventCompaction:
			ev.Decode(&c)
		case store.EventNotice:
			ev.Decode(&notice)
		case store.EventAssistant:
			var a store.AssistantMessage
			if ev.Decode(&a); !strings.HasPrefix(a.Text, "OLD-") {
				t.Fatalf("a reply followed /compact: %q", a.Text)
			}
		}
	}
	if c.Trigger != compact.TriggerManual || c.Instruction != "keep the file names" || c.From != 0 || c.To != 4 {
		t.Fatalf("compaction = %+v", c)
	}
	if !strings.Contains(notice.Text, "Context compacted as you asked: 4 earlier messages") {
		t.Fatalf("notice = %q", notice.Text)
	}
}

// The composer's /clear: a new, empty conversation with the same settings.
func TestClearKeepsTheSettings(t *testing.T) {
	t.Parallel()
	f, id, dir := agentFixture(t)
	if err := f.app.Sessions.SetMode(id, "autonomous"); err != nil {
		t.Fatal(err)
	}
	if err := f.app.Sessions.SetThinking(id, "high"); err != nil {
		t.Fatal(err)
	}
	f.store.UpdateSession(id, func(i *store.SessionInfo) { i.Model = "some-model" })
	f.store.Append(id, store.EventUser, store.UserMessage{Text: "hello"})
	info, err := f.app.Sessions.Clear(id)
	if err != nil {
		t.Fatal(err)
	}
	if info.ID == id || info.Workspace != dir || info.Mode != "autonomous" || info.Thinking != "high" || info.Model != "some-model" || info.Events != 0 {
		t.Fatalf("cleared = %+v", info)
	}
	if _, err := f.app.Sessions.Clear("nope"); err == nil {
		t.Fatal("cleared a conversation that does not exist")
	}
}

// The composer's @file: the workspace's files are listed as find_files walks them, and the one
// chosen becomes an attachment named by its path.
func TestMentionedFileBecomesAnAttachment(t *testing.T) {
	t.Parallel()
	f, id, dir := agentFixture(t)
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "src", "parser.go"), []byte("package src\n\nfunc Parse() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "run.log"), []byte("noise"), 0o644)
	files, err := f.app.Sessions.WorkspaceFiles(id)
	if err != nil || !slices.Contains(files, "src/parser.go") || slices.Contains(files, "run.log") || slices.Contains(files, ".gitignore") {
		t.Fatalf("files = %q, %v", files, err)
	}
	a, err := f.app.Chat.AttachWorkspaceFile(id, "src/parser.go")
	if err != nil || a.Kind != store.AttachFile || a.Name != "src/parser.go" || !strings.Contains(a.Text, "func Parse()") || a.Tokens == 0 || a.Blob == "" {
		t.Fatalf("attachment = %+v, %v", a, err)
	}
	if _, err := f.app.Chat.AttachWorkspaceFile(id, "run.log"); err == nil {
		t.Fatal("an ignored file was attached")
	}
	plain, _ := f.app.Sessions.Create("")
	if _, err := f.app.Sessions.WorkspaceFiles(plain.ID); err == nil || !strings.Contains(err.Error(), "no workspace") {
		t.Fatalf("no workspace: %v", err)
	}
}
